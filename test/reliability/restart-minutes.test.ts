import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MINUTE_MS } from '../../src/domain/time.js'
import type { MarketEvent } from '../../src/domain/events.js'
import { MarketSimulator } from '../../src/sources/simulator/index.js'
import { openDatabase } from '../../src/store/database.js'
import { fastClock, printed, startService } from '../helpers/process.js'

// A restart across a minute boundary (issue 31, item 5), on the real service process and the simulator: SIGTERM at
// :40 of minute M, a restart in minute M + 1. Every minute the restart touched must come out as an uninterrupted
// run of the same seed has it (the simulator can replay what the stopped process missed), or carry a partial mark.
// The uninterrupted twin is the simulator's own live feed, counted here trade by trade (no aggregator, no store).
const SEED = 11
const COINS = ['BTC', 'ETH']
// the processes' clock runs this much faster than the wall clock (test/helpers/clock-speed.mjs)
const SPEED = 6

interface Twin {
  trades: number
  volume: number
  buy: number
}

/** every trade of the simulator's live feed in [from, to), per market and minute */
function twin(from: number, to: number): Map<string, Twin> {
  const out = new Map<string, Twin>()
  const sim = new MarketSimulator({ seed: SEED, coins: COINS })
  const sink = {
    emit(e: MarketEvent) {
      if (e.type !== 'trade' || e.ts < from || e.ts >= to) return
      const k = `${e.exchange}:${e.coin}:${e.marketType}:${e.ts - (e.ts % MINUTE_MS)}`
      const t = out.get(k) ?? { trades: 0, volume: 0, buy: 0 }
      t.trades++
      t.volume += e.size
      if (e.side === 'buy') t.buy += e.size
      out.set(k, t)
    },
  }
  sim.live(sink, { manual: true, fromTs: from })
  for (let t = from + 1000; t <= to; t += 1000) sim.pump(t)
  sim.stop()
  return out
}

describe('a restart across a minute boundary (npm start process, simulator)', () => {
  let dir = ''
  const procs: ChildProcess[] = []
  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL')
    if (dir) await fs.rm(dir, { recursive: true, force: true })
  })

  it('completes the minute cut by SIGTERM and the minute the restart came up in, as an uninterrupted run has them', { timeout: 180_000 }, async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'restart-minutes-'))
    // the minute the first run is stopped in: three clock minutes from now, so the first run is live before it begins
    const M = Math.ceil((Date.now() + 3 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS
    const clock = fastClock(M - 3 * MINUTE_MS, SPEED)
    const env = { LOG_LEVEL: 'info', SIM_COINS: COINS.join(','), ...clock.env }
    const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, clock.msUntil(t)))

    const first = await startService(dir, env, { nodeArgs: clock.nodeArgs })
    procs.push(first.proc)
    expect(clock.now(), 'the first run was live before minute M began').toBeLessThan(M - 5_000)
    await printed(first, /backfill done/)
    await sleepUntil(M + 40_000)
    first.proc.kill('SIGTERM')
    expect(await first.exited).toBe(0)

    // the restart comes up inside minute M + 1 (start-up takes a few clock seconds more)
    await sleepUntil(M + MINUTE_MS + 1_000)
    const second = await startService(dir, env, { nodeArgs: clock.nodeArgs })
    procs.push(second.proc)
    await printed(second, /backfill done/)
    // M + 1 closed and written (2 s grace, a 2 s flush timer: 12 clock seconds at this speed)
    await sleepUntil(M + 2 * MINUTE_MS + 30_000)
    second.proc.kill('SIGTERM')
    expect(await second.exited).toBe(0)

    const want = twin(M - MINUTE_MS, M + 2 * MINUTE_MS)
    const db = await openDatabase({ kind: 'embedded', engine: 'postgres', dataDir: dir }, { migrate: false })
    try {
      const rows = await db.sql.query<{ exchange: string; coin: string; market_type: string; ts: number; trades: number; volume: number; buy_volume: number }>(
        `SELECT exchange, coin, market_type, ts::float8 AS ts, trades, volume, buy_volume FROM candle_1m WHERE ts >= $1 AND ts < $2`,
        [M, M + 2 * MINUTE_MS],
      )
      const marks = await db.sql.query<{ exchange: string; coin: string; market_type: string; ts: number }>(
        `SELECT exchange, coin, market_type, ts::float8 AS ts FROM minute_partial WHERE ts >= $1 AND ts < $2`,
        [M, M + 2 * MINUTE_MS],
      )
      const marked = new Set(marks.map((r) => `${r.exchange}:${r.coin}:${r.market_type}:${r.ts}`))
      const got = new Map(rows.map((r) => [`${r.exchange}:${r.coin}:${r.market_type}:${r.ts}`, r]))
      const keys = [...want.keys()].filter((k) => Number(k.split(':')[3]) >= M)
      expect(keys.length).toBeGreaterThan(20) // both minutes, every traded market of both coins
      const short: string[] = []
      for (const k of keys) {
        const w = want.get(k)!
        const r = got.get(k)
        const same = r && r.trades === w.trades && Math.abs(r.volume - w.volume) <= 1e-9 * w.volume && Math.abs(r.buy_volume - w.buy) <= 1e-9 * w.volume
        if (!same && !marked.has(k)) short.push(`${k}: ${r ? `${r.trades} trades, volume ${r.volume}` : 'no row'} against ${w.trades} trades, volume ${w.volume}; not marked partial`)
      }
      expect(short).toEqual([])
      // the simulator replays: nothing is left marked in the two minutes
      expect(marks).toEqual([])
    } finally {
      await db.close()
    }
  })
})
