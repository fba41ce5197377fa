// One writer per venue on a shared PostgreSQL: a lease per venue is a session-level advisory lock held on a
// connection of its own. Every ingest node runs its source and aggregates (a hot standby); only the holder of a
// venue's lease writes that venue's rows. The others keep their closed minutes (30 minutes back) in memory: when
// a lease comes free (its holder died: PostgreSQL drops a dead session's locks at once) the next node to ask
// takes it — within LEASE_POLL_MS — and first writes the minutes its writer had not stored (after the newest
// stored minute, or that minute itself when it is marked partial), so no minute is lost and none is written twice.
import pg from 'pg'
import type { Logger } from 'pino'
import { MINUTE_MS } from '../domain/time.js'
import { MARKET_TYPES, type ExchangeId } from '../domain/exchanges.js'
import type { MinuteBar } from '../domain/minute-bars.js'
import type { BookSnapshotEvent } from '../domain/events.js'
import type { Sql } from '../store/database.js'
import { pgConfigFromUrl } from '../store/migration-adapters.js'
import { minuteKey, readResumablePartials } from '../store/market/partial-minutes.js'
import type { FundingRow, MarketSample } from '../store/market/samples.js'

export interface GatedRows {
  bars: MinuteBar[]
  samples: MarketSample[]
  funding: FundingRow[]
  books: BookSnapshotEvent[]
}

/** what Ingest asks before it writes */
export interface WriteGate {
  /** the rows this process may write now (plus, after a takeover, those its writer had not stored); the rest wait */
  admit(rows: GatedRows, partial: Map<MinuteBar, number>): Promise<GatedRows & { tookOver: boolean }>
}

/** how far back a standby keeps rows it did not write */
const KEEP_MS = 30 * MINUTE_MS

export class WriterLeases implements WriteGate {
  private client: pg.Client | null = null
  /** leases held (venues and named tasks) */
  private readonly held = new Set<string>()
  /** venues whose rows this process writes (held, and taken over) */
  private readonly writable = new Set<ExchangeId>()
  private readonly kept = { bars: [] as MinuteBar[], samples: [] as MarketSample[], funding: [] as FundingRow[] }
  private timer: NodeJS.Timeout | null = null
  private polling: Promise<void> = Promise.resolve()
  private stopped = false

  constructor(
    private readonly opts: {
      url: string
      sql: Pick<Sql, 'query'>
      venues: readonly ExchangeId[]
      /** other single-runner tasks (e.g. 'backfill'): their lease is taken the same way */
      tasks?: readonly string[]
      pollMs: number
      logger: Logger
      clock: () => number
      /** a lease was taken */
      onAcquire?: (name: string) => void
    },
  ) {}

  /** take what leases are free now, then keep asking every pollMs */
  async start(): Promise<void> {
    await this.poll()
    this.timer = setInterval(() => void (this.polling = this.polling.then(() => this.poll())), this.opts.pollMs)
    this.timer.unref()
  }

  holds(name: string): boolean {
    return this.held.has(name)
  }

  /** the venues this process writes */
  writing(): ExchangeId[] {
    return [...this.writable]
  }

  private lockKey(name: string): [string, string] {
    // advisory locks are per database: the schema is part of the key, so deployments in one database never collide
    const { schema } = pgConfigFromUrl(this.opts.url)
    return ['perp-analytics writer', `${schema ?? 'public'}:${name}`]
  }

  private async poll(): Promise<void> {
    if (this.stopped) return
    try {
      if (!this.client) await this.connect()
      const c = this.client!
      await c.query('SELECT 1') // the session (and so every lease it holds) is alive
      for (const name of [...this.opts.venues, ...(this.opts.tasks ?? [])]) {
        if (this.held.has(name)) continue
        const [a, b] = this.lockKey(name)
        const [row] = (await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS ok', [a, b])).rows
        if (!row?.ok) continue
        this.held.add(name)
        this.opts.logger.info({ lease: name }, 'writer lease taken')
        this.opts.onAcquire?.(name)
      }
    } catch (err) {
      this.lost(err)
    }
  }

  private async connect(): Promise<void> {
    const { config } = pgConfigFromUrl(this.opts.url)
    const client = new pg.Client({ ...config, keepAlive: true, keepAliveInitialDelayMillis: 5000, connectionTimeoutMillis: 5000, query_timeout: 5000 })
    client.on('error', (err) => this.lost(err))
    client.on('end', () => this.client === client && this.lost(new Error('lease connection closed')))
    await client.connect()
    this.client = client
  }

  /** the lease session is gone: so are its locks, and this process stops writing at once */
  private lost(err: unknown): void {
    if (this.held.size) this.opts.logger.error({ err, leases: [...this.held] }, 'writer leases lost: standing by')
    this.held.clear()
    this.writable.clear()
    const c = this.client
    this.client = null
    c?.end().catch(() => {})
  }

  async admit(rows: GatedRows, partial: Map<MinuteBar, number>): Promise<GatedRows & { tookOver: boolean }> {
    const taking = this.opts.venues.filter((v) => this.held.has(v) && !this.writable.has(v))
    const back = taking.length ? await this.takeBack(taking) : { bars: [], samples: [], funding: [] }
    const mine = (r: { exchange: ExchangeId }) => this.writable.has(r.exchange)
    const out: GatedRows & { tookOver: boolean } = { bars: back.bars, samples: back.samples, funding: back.funding, books: rows.books.filter(mine), tookOver: taking.length > 0 }
    for (const b of rows.bars) {
      if (mine(b)) out.bars.push(b)
      else if (partial.delete(b)) continue // a standby's short minute (its shutdown) is nobody's to write
      else this.kept.bars.push(b)
    }
    for (const s of rows.samples) (mine(s) ? out.samples : this.kept.samples).push(s)
    for (const f of rows.funding) (mine(f) ? out.funding : this.kept.funding).push(f)
    const floor = this.opts.clock() - KEEP_MS
    this.kept.bars = this.kept.bars.filter((b) => b.ts >= floor)
    this.kept.samples = this.kept.samples.filter((s) => s.ts >= floor)
    this.kept.funding = this.kept.funding.filter((f) => f.ts >= floor)
    return out
  }

  /** venues just leased: the kept rows their writer had not stored, and from now on theirs to write */
  private async takeBack(venues: ExchangeId[]): Promise<Omit<GatedRows, 'books'>> {
    const since = this.opts.clock() - 2 * KEEP_MS
    const last = new Map<string, number>()
    for (const v of venues) {
      // only the markets it kept rows of: a range of candle_1m's key (coin, market type, ts) each
      const coins = [...new Set(this.kept.bars.filter((b) => b.exchange === v).map((b) => b.coin))]
      if (!coins.length) continue
      const rows = await this.opts.sql.query<{ coin: string; market_type: string; last: number | string }>(
        `SELECT coin, market_type, max(ts) AS last FROM candle_1m WHERE coin = ANY($2::text[]) AND market_type = ANY($4::text[]) AND ts >= $3 AND exchange = $1 GROUP BY coin, market_type`,
        [v, coins, since, MARKET_TYPES],
      )
      for (const r of rows) last.set(`${v}:${r.coin}:${r.market_type}`, Number(r.last))
    }
    const marked = new Set((await readResumablePartials(this.opts.sql)).map((p) => minuteKey(p.bar, p.bar.ts)))
    const taking = new Set<ExchangeId>(venues)
    const bars: MinuteBar[] = []
    const keep: MinuteBar[] = []
    for (const b of this.kept.bars) {
      if (!taking.has(b.exchange)) keep.push(b)
      else {
        const stored = last.get(`${b.exchange}:${b.coin}:${b.marketType}`)
        if (stored === undefined || b.ts > stored || (b.ts === stored && marked.has(minuteKey(b, b.ts)))) bars.push(b)
      }
    }
    this.kept.bars = keep
    const samples = this.kept.samples.filter((s) => taking.has(s.exchange))
    const funding = this.kept.funding.filter((f) => taking.has(f.exchange))
    this.kept.samples = this.kept.samples.filter((s) => !taking.has(s.exchange))
    this.kept.funding = this.kept.funding.filter((f) => !taking.has(f.exchange))
    for (const v of venues) this.writable.add(v)
    this.opts.logger.info({ venues, minutes: bars.length }, 'took over writing: minutes the previous writer had not stored are written first')
    return { bars, samples, funding }
  }

  /** give the leases back (a clean shutdown hands over at once) */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    await this.polling
    const c = this.client
    this.client = null
    this.held.clear()
    this.writable.clear()
    await c?.end().catch(() => {})
  }
}
