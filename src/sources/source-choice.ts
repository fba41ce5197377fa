// Which market source a start runs (issue 30, item 6). MARKET_SOURCE=auto, the default: the venues' live data when
// at least one venue answers a probe within a few seconds, the simulator otherwise. Whatever was asked, one kind of
// source per store (src/store/market/store-source.ts): a store that holds simulated data keeps the simulator under
// auto, and an explicit source of another kind than the store holds is refused, naming the store.
import { engineDir } from '../store/embedded/index.js'
import type { Config } from '../config.js'
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import type { Database } from '../store/database.js'
import { parseMarketSource, type MarketSource } from './connectors/source.js'
import type { ProbeResult } from './connectors/probe.js'
import { claimStoreSource, readStoreSource, type StoreSourceKind } from '../store/market/store-source.js'

export type ChosenSource = Exclude<MarketSource, { kind: 'auto' }>

export interface SourceChoice {
  /** MARKET_SOURCE as configured */
  requested: string
  source: ChosenSource
  /** why this source, in a sentence (the start banner, the log, /v1/markets/exchanges' status reasons) */
  reason: string
  /** auto: each venue's probe; null when none was made */
  probes: ProbeResult[] | null
}

/** a start whose source would mix another kind of data into the store */
export class StoreSourceError extends Error {}

const KIND_WORDS: Record<StoreSourceKind, string> = { simulator: 'simulated', live: 'live venue', replay: 'replayed' }

/** the store as an operator names it: the embedded store's directory, or the PostgreSQL database (no password) */
function storeWhere(config: Pick<Config, 'store'>): string {
  const s = config.store
  if (s.kind === 'embedded') return `the embedded store in ${engineDir(s.dataDir, s.engine)}`
  try {
    const u = new URL(s.url)
    return `the PostgreSQL database ${u.username ? `${u.username}@` : ''}${u.host}${u.pathname}${u.search}`
  } catch {
    return 'the PostgreSQL database of DATABASE_URL'
  }
}

const kindOf = (s: ChosenSource): StoreSourceKind | null => (s.kind === 'none' ? null : s.kind)
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`

function mixError(config: Pick<Config, 'store' | 'MARKET_SOURCE'>, held: StoreSourceKind, wanted: StoreSourceKind, detail: string | null): StoreSourceError {
  const where = storeWhere(config)
  const keep = held === 'simulator' ? 'MARKET_SOURCE=simulator (or auto)' : held === 'live' ? 'MARKET_SOURCE=live, a list of venues, or auto' : 'MARKET_SOURCE=replay:<file>'
  return new StoreSourceError(
    `${where} holds ${KIND_WORDS[held]} market data${detail ? ` (${detail})` : ''}; MARKET_SOURCE=${config.MARKET_SOURCE} would write ${KIND_WORDS[wanted]} data into it, ` +
      `and the two must not mix. Start with ${keep}, or give this source a store of its own: another DATA_DIR (or DATABASE_URL), ` +
      `or remove ${where.replace(/^the /, '')} to start afresh.`,
  )
}

function sourceSummary(source: ChosenSource): string {
  if (source.kind === 'live') return `live: ${source.exchanges.join(',')}`
  if (source.kind === 'replay') return `replay: ${source.file}`
  return source.kind
}

/**
 * Decides the source and records its kind in the store. `probe` asks the venues (src/sources/connectors/probe.ts);
 * it is only called for auto on a store without simulated data.
 */
export async function chooseSource(opts: { config: Pick<Config, 'store' | 'MARKET_SOURCE'>; db: Database; now: () => number; probe: () => Promise<ProbeResult[]> }): Promise<SourceChoice> {
  const { config, db } = opts
  const requested = config.MARKET_SOURCE
  const asked = parseMarketSource(requested)
  if (asked.kind === 'none') return { requested, source: asked, reason: 'MARKET_SOURCE=none: no source runs; the process serves what the store holds', probes: null }
  const store = await readStoreSource(db)
  let choice: SourceChoice
  if (asked.kind !== 'auto') {
    if (store.kind && store.kind !== asked.kind) throw mixError(config, store.kind, asked.kind, store.detail)
    choice = { requested, source: asked, reason: `MARKET_SOURCE=${requested}`, probes: null }
  } else if (store.kind === 'replay') {
    throw new StoreSourceError(`${storeWhere(config)} holds replayed market data (${store.detail}); MARKET_SOURCE=auto chooses between the venues and the simulator and would mix either into it. Start with MARKET_SOURCE=replay:<file> or none, or use another DATA_DIR (or DATABASE_URL).`)
  } else if (store.kind === 'simulator' || store.unknownData) {
    const why = store.kind === 'simulator' ? 'holds simulated data' : 'holds market data from before its source was recorded'
    choice = { requested, source: { kind: 'simulator' }, reason: `MARKET_SOURCE=auto: ${storeWhere(config)} ${why}, so the simulator runs (live data needs a store of its own: another DATA_DIR or DATABASE_URL)`, probes: null }
  } else {
    const probes = await opts.probe()
    const answered = probes.filter((p) => p.ok).map((p) => p.exchange)
    const silent = probes.filter((p) => !p.ok).map((p) => `${p.exchange} ${p.reason}`)
    const slowest = Math.max(0, ...probes.map((p) => p.ms))
    if (answered.length > 0)
      choice = { requested, source: { kind: 'live', exchanges: EXCHANGE_IDS.filter((e) => answered.includes(e)) }, reason: `MARKET_SOURCE=auto: ${answered.length} of ${probes.length} venues answered within ${secs(slowest)}${silent.length ? ` (not: ${silent.join('; ')})` : ''}`, probes }
    else if (store.kind === 'live')
      // a live store never takes simulated data: every venue, each connector retrying until its venue answers
      choice = { requested, source: { kind: 'live', exchanges: [...EXCHANGE_IDS] }, reason: `MARKET_SOURCE=auto: ${storeWhere(config)} holds live data; no venue answered yet (${silent.join('; ')}), the connectors keep trying`, probes }
    else choice = { requested, source: { kind: 'simulator' }, reason: `MARKET_SOURCE=auto: no venue answered within ${secs(slowest)} (${silent.join('; ')}), so the simulator runs`, probes }
  }
  const kind = kindOf(choice.source)!
  const held = await claimStoreSource(db, kind, `${requested} -> ${sourceSummary(choice.source)}`, opts.now())
  // another process claimed the store for another kind between the read and the claim
  if (held.kind !== kind) throw mixError(config, held.kind, kind, held.detail)
  return choice
}

/** a tool that writes one kind of market data itself (npm run backfill: simulated history) claims the store for it, or is refused */
export async function claimStoreFor(config: Pick<Config, 'store' | 'MARKET_SOURCE'>, db: Database, kind: StoreSourceKind, detail: string, now: number): Promise<void> {
  const held = await claimStoreSource(db, kind, detail, now)
  if (held.kind !== kind) throw mixError({ ...config, MARKET_SOURCE: detail }, held.kind, kind, held.detail)
}

/** venues auto probed that did not answer: why, for their status reason */
export function unansweredVenues(choice: SourceChoice | null): Map<ExchangeId, string> {
  const out = new Map<ExchangeId, string>()
  if (choice?.source.kind !== 'live' || !choice.probes) return out
  for (const p of choice.probes) if (!p.ok && !choice.source.exchanges.includes(p.exchange)) out.set(p.exchange, `did not answer the start probe (${p.reason}); restart to try it again`)
  return out
}
