// The whole service replaying a recording in process, on a clock the test moves: createServices + createApp (an
// ephemeral HTTP server, as npm start) + startMarketRuntime with MARKET_SOURCE=replay:<file>, embedded memory store.
// Not a test file.
import { startMarketRuntime, type MarketRuntime } from '../../../src/market/runtime.js'
import type { ReplayPlayer } from '../../../src/market/replay/player.js'
import { startTestService, type TestService } from '../../helpers/service.js'

export const FIXTURES_RECORDING = new URL('../../../recordings/fixtures.jsonl', import.meta.url).pathname

export interface ReplayService {
  t: TestService
  runtime: MarketRuntime
  replay: ReplayPlayer
  key: string
  /** the clock the service (and the replay) reads */
  now(): number
  setNow(ms: number): void
  /** GET with the test key; the parsed body */
  get(path: string): Promise<{ status: number; body: any }>
  /** move the clock to `ms`, deliver what is due, and let the connectors react */
  moveTo(ms: number): Promise<void>
  /** play the recording to its end (and `extraMs` beyond), one due line at a time, then write everything */
  playToEnd(extraMs?: number): Promise<void>
  /** close minutes on the warped clock and write what is pending (what the runtime's timer does) */
  flush(): Promise<void>
  close(): Promise<void>
}

/**
 * Lets the connectors react to what was delivered: turns of the event loop until no event, frame or answer moved
 * for a few turns in a row (no fixed sleep).
 */
export async function settle(runtime: MarketRuntime, replay: ReplayPlayer): Promise<void> {
  const mark = () => {
    const s = replay.stats()
    return `${runtime.ingest.stats.events}|${s.frames.delivered}|${s.frames.waiting}|${s.http.answered}|${s.http.unanswerable}`
  }
  let last = mark()
  let quiet = 0
  for (let i = 0; i < 500 && quiet < 4; i++) {
    await new Promise((r) => setTimeout(r, 0))
    const m = mark()
    quiet = m === last ? quiet + 1 : 0
    last = m
  }
}

export async function startReplayService(file: string, opts: { start: number; env?: Record<string, string> }): Promise<ReplayService> {
  let now = opts.start
  const t = await startTestService({ env: { MARKET_SOURCE: `replay:${file}`, ...opts.env }, clock: () => now })
  const runtime = await startMarketRuntime(t.services)
  const replay = runtime.replay!
  const { apiKey, accountId } = await t.signup()
  await t.setCredits(accountId, 1_000_000)
  const s: ReplayService = {
    t,
    runtime,
    replay,
    key: apiKey,
    now: () => now,
    setNow: (ms) => {
      now = ms
    },
    async get(path) {
      const res = await t.get(path, apiKey)
      return { status: res.status, body: await res.json() }
    },
    async moveTo(ms) {
      now = Math.max(now, ms)
      await replay.pump()
      await settle(runtime, replay)
    },
    async playToEnd(extraMs = 0) {
      await s.moveTo(now)
      const end = replay.clock.wallAt(replay.clock.warpedOfCompressed(replay.warp.last, 0))
      for (let guard = 0; guard < 100_000; guard++) {
        const next = replay.nextDueWall()
        if (next === undefined || next > end) break
        await s.moveTo(Math.max(now + 1, next))
      }
      await s.moveTo(end + 1 + extraMs)
      await s.flush()
    },
    async flush() {
      runtime.ingest.advance(runtime.now())
      await runtime.ingest.flush()
    },
    async close() {
      await runtime.stop()
      await t.close()
    },
  }
  return s
}
