import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs/promises'
import { request } from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { CoinSeries } from '../../src/read/series.js'
import { openDatabase } from '../../src/store/database.js'
import { clockAhead, printed, startService } from '../helpers/process.js'
import { reads } from '../helpers/series.js'
import { sseReader, until } from '../push/sse-client.js'

// The real service process (the README's `npm start`, on the embedded store): SIGTERM lets an in-flight
// request finish, ends open streams (GET /v1/stream and the GraphQL subscription) with a last event, and writes
// the pending 1-minute aggregates; a restart then resumes with no gap and no duplicate minute in the stored data, and
// takes its hot series from the snapshot the stopped process left (equal to what the store holds).

/**
 * A GraphQL POST that is in flight on the server: its headers (with Expect: 100-continue) are sent first, and the
 * server's 100 Continue says it has taken the request; the body goes out when `send()` is called.
 */
function requestInFlight(url: string, key: string, query: string) {
  const body = JSON.stringify({ query })
  const req = request(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
  })
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = ''
      res.on('data', (c: Buffer) => (text += c.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      res.on('error', reject)
    })
    req.on('error', reject)
  })
  const taken = new Promise<void>((resolve) => req.once('continue', resolve))
  req.flushHeaders()
  return { taken, answer, send: () => req.end(body) }
}

describe('SIGTERM and restart (npm start process)', () => {
  let dir = ''
  const procs: ChildProcess[] = []
  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL')
    if (dir) await fs.rm(dir, { recursive: true, force: true })
  })

  it('drains in-flight requests, flushes pending aggregates, and restarts without a gap or duplicate minute', { timeout: 120_000 }, async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sigterm-'))
    // the alert engine polls the store every 20 ms: a round after the store closed would say so in the log
    const first = await startService(dir, { LOG_LEVEL: 'info', ALERT_POLL_MS: '20' })
    procs.push(first.proc)
    await printed(first, /backfill done/)

    // a request the server has taken when SIGTERM arrives still gets its answer: its body is sent only once
    // the service says it is draining
    const inflight = requestInFlight(first.url, first.key, '{ ticker(coin: "BTC") { exchange markPrice } }')
    await inflight.taken
    first.proc.kill('SIGTERM')
    await printed(first, /shutting down: draining requests/)
    inflight.send()
    const res = await inflight.answer
    expect(res.status, res.text.slice(0, 300)).toBe(200)
    expect((JSON.parse(res.text) as { data: { ticker: unknown[] } }).data.ticker).toHaveLength(5)
    expect(await first.exited).toBe(0)
    const stoppedAt = Date.now()
    // nothing read the store after it closed (the alert engine and the push signals stop first)
    expect(first.output()).not.toMatch(/is closed|a round failed|could not be computed/)

    // the restart lives a minute later than the wall clock, so the stored data must bridge a minute the service
    // was down (waiting for the next wall-clock minute would cost up to a minute)
    const later = clockAhead(MINUTE_MS)
    const second = await startService(dir, { LOG_LEVEL: 'info', ...later.env }, { nodeArgs: later.nodeArgs })
    procs.push(second.proc)
    // the first run left its hot series at shutdown: the restart takes them instead of reading the store
    await printed(second, /hot series restored from the snapshot/)
    expect((await fetch(`${second.url}/v1/markets/exchanges`, { headers: { authorization: `Bearer ${first.key}` } })).status).toBe(200)
    await printed(second, /backfill done/)
    // a live stream of the simulated tickers; SIGTERM ends it with a last event instead of holding the shutdown
    const stream = sseReader(await fetch(`${second.url}/v1/stream?channels=ticker&coin=BTC`, { headers: { authorization: `Bearer ${first.key}` } }))
    // and the same over GraphQL: the subscription's last event says why, then it completes
    const sub = sseReader(
      await fetch(`${second.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${first.key}`, accept: 'text/event-stream', 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'subscription { stream(channels: [TICKER], coins: ["BTC"]) { id channel data } }' }),
      }),
    )
    await until(() => stream.frames.some((f) => f.event === 'ticker'), 30_000, 'a simulated ticker on the stream')
    await until(() => sub.frames.some((f) => f.event === 'next'), 30_000, 'a simulated ticker on the subscription')
    second.proc.kill('SIGTERM')
    await stream.done
    expect(stream.frames.at(-1)!.event).toBe('end')
    expect(JSON.parse(stream.frames.at(-1)!.data)).toMatchObject({ reason: 'shutting_down' })
    await sub.done
    const nexts = sub.frames.filter((f) => f.event === 'next').map((f) => (JSON.parse(f.data) as { data: { stream: { channel: string; data: unknown } } }).data.stream)
    expect(nexts.at(-1)).toMatchObject({ channel: 'end', data: { reason: 'shutting_down' } })
    expect(sub.frames.at(-1)!.event).toBe('complete')
    expect(await second.exited).toBe(0)

    const db = await openDatabase({ kind: 'embedded', engine: 'postgres', dataDir: dir }, { migrate: false })
    try {
      // what the second run left at shutdown is what the store holds: restored, it answers every read as the series
      // loaded from the store does (at the second run's clock)
      const at = Date.now() + MINUTE_MS
      const left = db.handoff!.take()
      expect(left).not.toBeNull()
      const restored = new CoinSeries()
      expect(restored.restore(left!, at)).toBe(true)
      const loaded = new CoinSeries()
      await loaded.load(db, at)
      const coins = ['BTC', 'ETH', 'SOL']
      expect(reads(restored, at, coins)).toEqual(reads(loaded, at, coins))
      expect(loaded.minutes.marketBars('BTC', 'perp', at - HOUR_MS, at).length).toBeGreaterThan(20)

      // the minutes in which any BTC perp traded: one market alone can have a minute without trades (the
      // simulator's history draws ~6 trades a minute per market, and a quiet minute has none), five together cannot
      const rows = await db.sql.query<{ ts: number }>(`SELECT DISTINCT ts FROM candle_1m WHERE coin = 'BTC' AND market_type = 'perp' ORDER BY ts`)
      const ts = rows.map((r) => Number(r.ts))
      expect(ts.length).toBeGreaterThan(20)
      // the minute the first run was in at SIGTERM was written by its final flush
      expect(ts).toContain(stoppedAt - (stoppedAt % MINUTE_MS))
      // the second run wrote minutes after the one it started in, a minute or more after the first run stopped
      expect(ts.at(-1)!).toBeGreaterThanOrEqual(stoppedAt - (stoppedAt % MINUTE_MS) + MINUTE_MS)
      for (let i = 1; i < ts.length; i++) expect(ts[i]! - ts[i - 1]!, `gap or duplicate after ${new Date(ts[i - 1]!).toISOString()}`).toBe(MINUTE_MS)
    } finally {
      await db.close()
    }
  })
})
