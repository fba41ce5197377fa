// MARKET_SOURCE=replay:<file>: the five live connectors, unchanged, on CCXT instances whose REST calls are answered
// from a recording and whose WebSocket connections receive its frames, on a warped clock (docs/recordings.md).
import type { Logger } from 'pino'
import type { ConnectorOptions, ExchangeConnector } from '../connectors/index.js'
import { type EventSink } from '../../domain/events.js'
import { EXCHANGE_IDS, type ExchangeId, type MarketType } from '../../domain/exchanges.js'
import type { MarketState } from '../../read/state.js'
import { ReplayClock } from './clock.js'
import type { WsLine } from './format.js'
import { HttpIndex } from './http-match.js'
import { HttpReplay, type HistoryAnswers } from './http-replay.js'
import { loadRecording, type Recording } from './recording.js'
import { recordedMarketTypes, replayVenue } from './venue-wiring.js'
import { VENUE_RULES } from './venues.js'
import { TimeWarp } from './warp.js'
import { WarpingSink } from './warp-sink.js'
import type { WsReplay } from './ws-replay.js'

export interface ReplayOptions {
  file: string
  market: MarketState
  /** where the warped events go (the ingest pipeline) */
  sink: EventSink
  logger: Logger
  /** wall clock, Unix ms */
  wall: () => number
  coins: readonly string[]
  speed?: number
  loop?: boolean
  maxGapMs?: number
  /** extra connector options (tests narrow streams or intervals) */
  connectorOptions?: Partial<ConnectorOptions>
}

export interface ReplayStats {
  pass: number
  frames: { delivered: number; waiting: number; skipped: number; expired: number }
  http: { answered: number; unanswerable: number; history: HistoryAnswers }
  ended: boolean
}

/** the delivery timer wakes at least this often, so a clock that jumped is noticed */
const MAX_TIMER_MS = 1_000

export class ReplayPlayer {
  readonly clock: ReplayClock
  readonly warp: TimeWarp
  /** the running connectors (new ones every pass) */
  readonly connectors: ExchangeConnector[] = []
  private readonly types = new Map<ExchangeId, MarketType[]>()
  /** frame counts of the passes before this one */
  private readonly retired = { delivered: 0, skipped: 0, expired: 0 }
  private readonly http: HttpReplay
  private readonly index: HttpIndex
  private readonly ws = new Map<ExchangeId, WsReplay>()
  private readonly maxGapMs: number
  private pass = -1
  private cursor: AsyncIterator<WsLine> | null = null
  private next: WsLine | null = null
  private exhausted = false
  private pumping: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | null = null
  private stopped = false
  private endLogged = false

  private constructor(
    readonly recording: Recording,
    private readonly opts: ReplayOptions,
  ) {
    this.maxGapMs = opts.maxGapMs ?? 60_000
    this.warp = new TimeWarp(recording.times, this.maxGapMs)
    this.clock = new ReplayClock({ warp: this.warp, wall: opts.wall, speed: opts.speed ?? 1, loop: opts.loop ?? false })
    this.index = new HttpIndex(recording.http, VENUE_RULES, (t) => this.warp.compress(t))
    this.http = new HttpReplay({
      index: this.index,
      position: () => this.clock.position(),
      ended: () => this.clock.ended(),
      // the recording cannot change during the replay: the mark stays as long as the replay runs
      unanswerable: (venue, what, first) => {
        if (first) opts.logger.warn({ exchange: venue, call: what }, 'replay: the recording has no response for this call; the venue is marked degraded')
        opts.market.degrade(venue, this.degradedReason(venue))
      },
      uncovered: (venue, what, first) => {
        if (first) opts.logger.info({ exchange: venue, call: what }, 'replay: no recorded history page covers this window; answered empty (the history records a hole)')
      },
    })
  }

  static async open(opts: ReplayOptions): Promise<ReplayPlayer> {
    return new ReplayPlayer(await loadRecording(opts.file), opts)
  }

  /** the venues the recording holds, in the usual order */
  venues(): ExchangeId[] {
    return EXCHANGE_IDS.filter((v) => this.recording.venues.has(v))
  }

  /** Starts one connector per recorded venue and the delivery timer. */
  start(): void {
    const { opts, clock } = this
    const speed = clock.speed
    for (const venue of this.venues()) {
      this.types.set(venue, recordedMarketTypes(venue, this.index, opts.logger))
      opts.market.enabled.add(venue)
    }
    this.startConnectors()
    const first = clock.wallAt(clock.warpedOfCompressed(this.warp.first, 0))
    opts.logger.info(
      {
        file: this.recording.file,
        venues: this.venues(),
        httpResponses: this.recording.http.length,
        frames: this.recording.frameCount,
        sessions: this.warp.segments.length,
        speed,
        loop: clock.loop,
        firstLineInMs: Math.max(0, first - opts.wall()),
        recordingEndsAt: new Date(clock.wallAt(clock.warpedOfCompressed(this.warp.last, 0))).toISOString(),
      },
      'replay: starting',
    )
    this.schedule(0)
  }

  /** the warped clock: what "now" is for the replayed data (the ingest closes minutes on it) */
  warpedNow(): number {
    return this.clock.warpedNow()
  }

  /** Delivers every recorded frame due by now (REST calls are answered when they are made). */
  pump(): Promise<void> {
    const run = this.pumping.then(() => this.pumpNow())
    this.pumping = run.catch((err: unknown) => this.opts.logger.error({ err }, 'replay: delivery failed'))
    return run
  }

  stats(): ReplayStats {
    const ws = [...this.ws.values()]
    const sum = (f: (w: WsReplay) => number) => ws.reduce((a, w) => a + f(w), 0)
    return {
      pass: Math.max(0, this.pass),
      frames: {
        delivered: this.retired.delivered + sum((w) => w.delivered),
        waiting: sum((w) => w.pendingCount()),
        skipped: this.retired.skipped + sum((w) => w.skipped),
        expired: this.retired.expired + sum((w) => w.expired),
      },
      http: { answered: this.http.answeredCount, unanswerable: this.http.unanswerableCount, history: { ...this.http.history } },
      ended: this.clock.ended(),
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.pumping
    await this.stopConnectors()
    await this.cursor?.return?.()
  }

  /**
   * One connector per recorded venue, on fresh CCXT instances wired to the recording. Every pass gets new ones: a
   * pass is a new session (the venue's sequence numbers, the connectors' throttles and watermarks start again).
   */
  private startConnectors(): void {
    const { opts, clock } = this
    const wiring = { http: this.http, clock, sink: new WarpingSink(opts.sink, clock), logger: opts.logger, coins: opts.coins, connectorOptions: opts.connectorOptions }
    for (const venue of this.venues()) {
      const { connector, ws } = replayVenue(venue, this.types.get(venue)!, wiring)
      this.ws.set(venue, ws)
      this.connectors.push(connector)
    }
  }

  private async stopConnectors(): Promise<void> {
    const stopping = this.connectors.splice(0)
    await Promise.all(stopping.map((c) => c.stop()))
    for (const ws of this.ws.values()) {
      this.retired.delivered += ws.delivered
      this.retired.skipped += ws.skipped
      this.retired.expired += ws.expired + ws.pendingCount()
    }
    this.ws.clear()
  }

  // ---- delivery ----------------------------------------------------------------------------------

  private async pumpNow(): Promise<void> {
    if (this.stopped) return
    const pos = this.clock.position()
    if (pos.pass !== this.pass) await this.beginPass(pos.pass)
    for (;;) {
      const line = await this.peek()
      if (!line) break
      const at = this.warp.compress(line.at)
      if (at > pos.compressed) break
      this.next = null
      this.ws.get(line.venue)?.deliver(line, at)
      // one frame per turn of the event loop, as CCXT's own socket reader does, so every watcher sees every update
      await new Promise<void>((r) => setImmediate(r))
      if (this.stopped) return
    }
    for (const ws of this.ws.values()) ws.expire(pos.compressed, this.maxGapMs)
    if (this.clock.ended() && !this.endLogged) {
      this.endLogged = true
      // nothing more will come: the connectors stop, the feeds age to degraded and down as a silent venue's would
      await this.stopConnectors()
      this.opts.logger.info(this.stats(), 'replay: the recording has ended; its venues go quiet')
    }
  }

  private async beginPass(pass: number): Promise<void> {
    if (this.pass >= 0) {
      this.opts.logger.info({ pass: pass + 1 }, 'replay: the recording starts again')
      await this.stopConnectors()
      if (this.stopped) return
      this.startConnectors()
    }
    this.pass = pass
    await this.cursor?.return?.()
    this.cursor = this.recording.frames()[Symbol.asyncIterator]()
    this.next = null
    this.exhausted = false
  }

  private async peek(): Promise<WsLine | null> {
    if (this.next || this.exhausted || !this.cursor) return this.next
    const r = await this.cursor.next()
    if (r.done) this.exhausted = true
    else this.next = r.value
    return this.next
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      // a failed delivery is logged by pump(); the schedule goes on (the rejection handled here, never unhandled)
      void this.pump()
        .catch(() => {})
        .finally(() => this.schedule(this.untilNextDue()))
    }, delayMs)
    this.timer.unref()
  }

  /** wall ms until the next frame is due (capped, so a changed clock is noticed) */
  private untilNextDue(): number {
    const due = this.nextDueWall()
    return due === undefined ? MAX_TIMER_MS : Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(due - this.opts.wall())))
  }

  /** the wall time at which the next recorded frame (or, looping, the next pass) is due; undefined when none is */
  nextDueWall(): number | undefined {
    const pass = Math.max(0, this.pass)
    const due = this.next ? this.warp.compress(this.next.at) : this.exhausted && this.clock.loop ? this.warp.first + this.clock.period : undefined
    return due === undefined ? undefined : this.clock.wallAt(this.clock.warpedOfCompressed(due, pass))
  }

  private degradedReason(venue: ExchangeId): string {
    const calls = this.http.unansweredCalls(venue)
    const shown = calls.slice(0, 3).join('; ')
    return `replay: the recording has no response for ${shown}${calls.length > 3 ? ` and ${calls.length - 3} more` : ''}`
  }
}
