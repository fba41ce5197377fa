// Start to first healthy answer of the service exactly as a user starts it — `npm start` (scripts/start.mjs with the
// package's V8 flags) on the embedded store the bench filled — after a clean stop (SIGTERM: the hot series left
// with the store are taken back) and after an unclean one (no snapshot: the series are read from the store).
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { handoffFile } from '../src/store/database.js'
import { engineDir, type EmbeddedEngine } from '../src/store/embedded/index.js'
import { NODE_FLAGS } from '../scripts/build.mjs'

export interface Running {
  proc: ChildProcess
  url: string
  /** ms from spawn to /healthz answering 200 */
  healthyMs: number
}

/** `npm start` (scripts/start.mjs with the package's V8 flags) on the filled store, with `env` on top of the bench's own */
export async function startService(root: string, dataDir: string, env: Record<string, string> = {}): Promise<Running> {
  const t0 = performance.now()
  // the embedded store in dataDir, whatever the caller's environment says (no DATABASE_URL)
  const { DATABASE_URL: _url, ...inherited } = process.env
  const fullEnv = { ...inherited, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env }
  const proc = spawn(process.execPath, [...NODE_FLAGS, path.join(root, 'scripts', 'start.mjs')], { cwd: root, env: fullEnv, stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /running at (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    proc.once('exit', (code) => reject(new Error(`npm start exited with ${code} before it listened:\n${out}`)))
  })
  // the URL is printed right after the server listens; the first healthy answer is one request later
  for (;;) {
    const res = await fetch(`${url}/healthz`).catch(() => null)
    if (res?.ok) break
    await new Promise((r) => setTimeout(r, 20))
  }
  return { proc, url, healthyMs: performance.now() - t0 }
}

export async function stop(r: Running): Promise<void> {
  const exited = new Promise((resolve) => r.proc.once('exit', resolve))
  r.proc.kill('SIGTERM')
  await exited
}

export async function benchStart(root: string, dataDir: string): Promise<{ warmMs: number; coldMs: number }> {
  // a first run builds (once) and, stopped cleanly, leaves its series with the store
  await stop(await startService(root, dataDir))
  const warm = await startService(root, dataDir)
  await stop(warm)
  // an unclean stop leaves nothing behind
  fs.rmSync(handoffFile(engineDir(dataDir, (process.env.EMBEDDED_STORE ?? 'postgres') as EmbeddedEngine)), { force: true })
  const cold = await startService(root, dataDir)
  await stop(cold)
  return { warmMs: warm.healthyMs, coldMs: cold.healthyMs }
}
