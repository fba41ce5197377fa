// A NATS server of the test's own (never the shared one, which other tests use at the same time): JetStream on, on a
// free loopback port, stopped and started again on the same port to play an outage. The deployment's streams are
// memory streams, so a restarted server has none of them, as in production.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { stopped } from './child.js'

const BINARY = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server'

export interface OwnNats {
  url: string
  port: number
  /** stop the server (SIGTERM; SIGKILL after 5 s) */
  stop(): Promise<void>
  /** start it again on the same port, with an empty store directory */
  start(): Promise<void>
  close(): Promise<void>
}

/** null with the reason when there is no nats-server binary to run */
export const ownNatsMissing = (): string | null => (fs.existsSync(BINARY) ? null : `no nats-server binary at ${BINARY}`)

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

/** the server's INFO line says JetStream is on */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    let got = ''
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.on('error', () => done(false))
    socket.on('data', (d) => {
      got += d.toString()
      if (got.includes('"jetstream":true')) done(true)
    })
  })
}

export async function startOwnNats(): Promise<OwnNats> {
  const port = await freePort()
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'own-nats-'))
  let proc: ChildProcess | null = null
  let runs = 0
  const start = async () => {
    const dir = path.join(root, `run${++runs}`)
    const p = spawn(BINARY, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: 'ignore' })
    // a process that could not be started (or signalled) emits 'error': without a listener that ends the test process
    let failed: Error | null = null
    p.on('error', (err) => (failed = err))
    proc = p
    const end = Date.now() + 10_000
    while (!(await answers(port))) {
      if (failed || Date.now() > end) {
        // not left running (nor waited for, when it never started) behind the failure
        if (p.pid === undefined) proc = null
        else await stop()
        throw new Error(`nats-server on port ${port} did not start${failed ? `: ${String(failed)}` : ''}`)
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  const stop = async () => {
    const p = proc
    proc = null
    if (p) await stopped(p, 5000)
  }
  await start()
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async close() {
      await stop()
      fs.rmSync(root, { recursive: true, force: true })
    },
  }
}
