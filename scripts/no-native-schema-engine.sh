#!/bin/sh
# Stand-in for Prisma's native schema engine, which cannot be downloaded here. Nothing should ever run it.
echo "The native Prisma schema engine is not used in this project: run 'npm run db:migrate' (WASM engine)." >&2
exit 1
