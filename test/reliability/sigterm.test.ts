import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MINUTE_MS } from '../../src/domain/time.js'
import { openDatabase } from '../../src/store/database.js'
import { startService } from '../helpers/process.js'

// The real service process (the README's `npm start`, on the embedded store): SIGTERM lets an in-flight
// request finish and writes the pending 1-minute aggregates; a restart then resumes with no gap and no
// duplicate minute in the stored data.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('SIGTERM and restart (npm start process)', () => {
  let dir = ''
  const procs: ChildProcess[] = []
  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL')
    if (dir) await fs.rm(dir, { recursive: true, force: true })
  })

  it('drains in-flight requests, flushes pending aggregates, and restarts without a gap or duplicate minute', { timeout: 240_000 }, async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sigterm-'))
    const first = await startService(dir)
    procs.push(first.proc)
    await sleep(5_000)
    // a request in flight when SIGTERM arrives still gets its answer
    const inflight = fetch(`${first.url}/v1/signals/snapshot`, { headers: { authorization: `Bearer ${first.key}` } })
    await sleep(20)
    first.proc.kill('SIGTERM')
    const res = await inflight
    expect(res.status).toBe(200)
    expect(await first.exited).toBe(0)
    const stoppedAt = Date.now()

    // restart in a later minute, so the stored data must bridge a minute the service was down
    await sleep(MINUTE_MS - (Date.now() % MINUTE_MS) + 1_000)
    const second = await startService(dir)
    procs.push(second.proc)
    expect((await fetch(`${second.url}/v1/markets/exchanges`, { headers: { authorization: `Bearer ${first.key}` } })).status).toBe(200)
    await sleep(6_000)
    second.proc.kill('SIGTERM')
    expect(await second.exited).toBe(0)

    const db = await openDatabase({ kind: 'pglite', dir: path.join(dir, 'pglite') }, { migrate: false })
    try {
      // the minutes in which any BTC perp traded: one market alone can have a minute without trades (the
      // simulator's history draws ~6 trades a minute per market, and a quiet minute has none), five together cannot
      const rows = await db.sql.query<{ ts: number }>(`SELECT DISTINCT ts FROM candle_1m WHERE coin = 'BTC' AND market_type = 'perp' ORDER BY ts`)
      const ts = rows.map((r) => Number(r.ts))
      expect(ts.length).toBeGreaterThan(20)
      // the minute the first run was in at SIGTERM was written by its final flush
      expect(ts).toContain(stoppedAt - (stoppedAt % MINUTE_MS))
      for (let i = 1; i < ts.length; i++) expect(ts[i]! - ts[i - 1]!, `gap or duplicate after ${new Date(ts[i - 1]!).toISOString()}`).toBe(MINUTE_MS)
    } finally {
      await db.close()
    }
  })
})
