// The whole service replaying a recording in process, on a clock the test moves: createServices + createApp (an
// ephemeral HTTP server, as npm start) + startMarketRuntime with MARKET_SOURCE=replay:<file>, embedded memory store.
// Not a test file. Loading it makes any connection beyond loopback fail (the replay must never reach a venue).
import '../../helpers/no-network.js'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Logger } from 'pino'
import type { MarketEvent } from '../../../src/domain/events.js'
import { startMarketRuntime, type MarketRuntime } from '../../../src/sources/runtime.js'
import type { ReplayPlayer } from '../../../src/sources/replay/player.js'
import { startTestService, type TestService } from '../../helpers/service.js'

export const FIXTURES_RECORDING = fileURLToPath(new URL('../../../recordings/fixtures.jsonl', import.meta.url))
export const FIXTURES_DIR = process.env['EXCHANGE_FIXTURES_DIR'] ?? fileURLToPath(new URL('../../../../shared/fixtures/exchanges/', import.meta.url))

/** a raw fixture payload, parsed (the recording was built from these files) */
export function fixture<T = any>(file: string): T {
  return JSON.parse(readFileSync(path.join(FIXTURES_DIR, file), 'utf8')) as T
}

export interface ReplayService {
  t: TestService
  runtime: MarketRuntime
  replay: ReplayPlayer
  key: string
  /** the clock the service (and the replay) reads */
  now(): number
  /** GET with the test key; the parsed body */
  get(path: string): Promise<{ status: number; body: any }>
  /** move the clock to `ms`, deliver what is due, and let the connectors react */
  moveTo(ms: number): Promise<void>
  /** deliver every due line, one due time at a time, until the clock reads `ms` */
  playUntil(ms: number): Promise<void>
  /**
   * Play the recording up to its last line, one due line at a time; there, wait until a REST poll has answered on
   * the current clock (the connectors poll on real timers), and write what is complete.
   */
  playToEnd(): Promise<void>
  /** close minutes on the warped clock and write what is pending (what the runtime's timer does) */
  flush(): Promise<void>
  close(): Promise<void>
}

/**
 * Lets the connectors react to what was delivered: turns of the event loop until no event, frame or answer moved
 * for a few turns in a row (no fixed sleep).
 */
async function settle(runtime: MarketRuntime, replay: ReplayPlayer): Promise<void> {
  // polls run all the time; what a delivered frame sets off is a trade or a book
  const streamed = () => runtime.ingest.aggregator.stats.accepted + runtime.ingest.live.books.size + [...runtime.ingest.live.books.values()].reduce((a, b) => a + b.ts, 0)
  const mark = () => {
    const s = replay.stats()
    return `${streamed()}|${s.frames.delivered}|${s.frames.waiting}`
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

/**
 * The connectors poll on real timers while the test moves the clock in big steps: they poll every POLL_MS real ms
 * here, so each step of the replay sees polls stamped on its own clock.
 */
const POLL_MS = 20

/** waits (turns of the event loop, at most ~10 s) until `cond` holds */
export async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 1))
  }
}

export interface ReplayServiceOptions {
  start: number
  env?: Record<string, string>
  logger?: Logger
  /** open a real port on 127.0.0.1 (t.url): what streams (GET /v1/stream) needs; otherwise requests are injected */
  listen?: boolean
  /** told of every event the replay's ingest takes, as it takes it (before the live state and the push channels) */
  onEvent?: (e: MarketEvent) => void
  /** run once the test account exists and before the market starts (nothing is ingested yet): alert rules, streams */
  beforeMarket?: (t: TestService, key: string) => Promise<void>
}

export async function startReplayService(file: string, opts: ReplayServiceOptions): Promise<ReplayService> {
  let now = opts.start
  const t = await startTestService({ env: { MARKET_SOURCE: `replay:${file}`, ...opts.env }, clock: () => now, listen: opts.listen })
  if (opts.logger) t.services.logger = opts.logger
  const { apiKey, accountId } = await t.signup()
  await t.setCredits(accountId, 1_000_000)
  await opts.beforeMarket?.(t, apiKey)
  const runtime = await startMarketRuntime(t.services, { onEvent: opts.onEvent, replayConnectorOptions: { pollIntervalMs: POLL_MS, backoff: { baseMs: POLL_MS, maxMs: POLL_MS * 4 } } })
  const replay = runtime.replay!
  const s: ReplayService = {
    t,
    runtime,
    replay,
    key: apiKey,
    now: () => now,
    async get(path) {
      const res = await t.get(path, apiKey)
      return { status: res.status, body: await res.json() }
    },
    async moveTo(ms) {
      now = Math.max(now, ms)
      await replay.pump()
      await settle(runtime, replay)
    },
    async playUntil(ms) {
      await s.moveTo(now)
      for (let guard = 0; guard < 100_000; guard++) {
        const next = replay.nextDueWall()
        if (next === undefined || next > ms) break
        await s.moveTo(Math.max(now + 1, next))
      }
      await s.moveTo(ms)
    },
    async playToEnd() {
      await s.playUntil(replay.clock.wallAt(replay.clock.warpedOfCompressed(replay.warp.last, 0)))
      const warped = runtime.now()
      await until(() => [...t.services.market.live.tickers.values()].some((x) => x.ts >= warped - 1_000), 'a REST poll on the replay clock')
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

/** A recording of some lines of the fixture recording (a venue's session), written to a temporary file. */
export function subRecording(name: string, keep: (line: { venue: string; source?: string; kind: string }) => boolean): string {
  const lines = readFileSync(FIXTURES_RECORDING, 'utf8').split('\n').filter((l) => l && keep(JSON.parse(l)))
  const dir = mkdtempSync(path.join(tmpdir(), 'replay-'))
  const file = path.join(dir, `${name}.jsonl`)
  writeFileSync(file, lines.map((l) => l + '\n').join(''))
  return file
}
