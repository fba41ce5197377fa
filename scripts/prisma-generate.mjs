// `prisma generate` without the native engine download (see prisma/prisma.config.ts). Runs on npm install.
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const cli = createRequire(import.meta.url).resolve('prisma/build/index.js')
execFileSync(process.execPath, [cli, 'generate', '--config', path.join(root, 'prisma', 'prisma.config.ts')], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    // the pothos generator is a bin of @pothos/plugin-prisma
    PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    PRISMA_SCHEMA_ENGINE_BINARY: path.join(root, 'scripts', 'no-native-schema-engine.sh'),
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
})
