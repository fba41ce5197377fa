// `npm start`: build (scripts/build.mjs, a fraction of a second; nothing when unchanged), then run the service
// from the build in this same process, so signals (SIGTERM drains and flushes) reach it directly.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from './build.mjs'

const out = await build(['src'])
await import(pathToFileURL(path.join(out, 'src', 'main.js')).href)
