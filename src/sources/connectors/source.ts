// MARKET_SOURCE → which source runs. Kept apart from the connectors so reading the configuration does not
// load CCXT (a large library only live connectors need).
import { EXCHANGE_IDS, type ExchangeId } from '../../domain/exchanges.js'

export type MarketSource = { kind: 'none' } | { kind: 'auto' } | { kind: 'simulator' } | { kind: 'live'; exchanges: ExchangeId[] } | { kind: 'replay'; file: string }

export class MarketSourceError extends Error {
  readonly allowed = ['auto', 'simulator', 'live', 'none', 'replay:<file>', ...EXCHANGE_IDS]
}

const REPLAY_PREFIX = /^\s*replay:/i

/**
 * MARKET_SOURCE: unset/empty or "auto" -> live where a venue answers at start, else the simulator (src/sources/source-choice.ts);
 * "simulator" -> the simulator; "live" -> all five exchanges; a comma-separated list
 * of exchange ids ("binance,okx") -> those. Case-insensitive, whitespace ignored, duplicates collapse, order kept
 * (exchange ids order for "live"). "simulator" cannot be mixed with exchanges; an unknown name is an error.
 * "replay:<file>" plays a recording (docs/recordings.md); the path is taken as written (only the prefix is
 * case-insensitive) and cannot be combined with anything else. "none" runs no source: the process serves what the
 * store (and, with NATS_URL, the bus) holds.
 */
export function parseMarketSource(value: string | undefined | null): MarketSource {
  if (value && REPLAY_PREFIX.test(value)) {
    const file = value.replace(REPLAY_PREFIX, '').trim()
    if (!file) throw new MarketSourceError('MARKET_SOURCE: "replay:" needs a recording file, e.g. replay:recordings/fixtures.jsonl')
    return { kind: 'replay', file }
  }
  const names = (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)
  if (names.length === 0) return { kind: 'auto' }
  for (const alone of ['none', 'auto'] as const) {
    if (!names.includes(alone)) continue
    if (names.length > 1) throw new MarketSourceError(`MARKET_SOURCE: "${alone}" cannot be combined with other sources`)
    return { kind: alone }
  }
  const unknown = names.filter((n) => n !== 'simulator' && n !== 'live' && !(EXCHANGE_IDS as readonly string[]).includes(n))
  if (unknown.length > 0) {
    throw new MarketSourceError(`MARKET_SOURCE: unknown source ${unknown.map((u) => `"${u}"`).join(', ')}; use auto, simulator, live, none, or a comma-separated list of ${EXCHANGE_IDS.join(', ')}`)
  }
  if (names.includes('simulator')) {
    if (names.some((n) => n !== 'simulator')) throw new MarketSourceError('MARKET_SOURCE: "simulator" cannot be combined with live exchanges')
    return { kind: 'simulator' }
  }
  if (names.includes('live')) return { kind: 'live', exchanges: [...EXCHANGE_IDS] }
  return { kind: 'live', exchanges: [...new Set(names)] as ExchangeId[] }
}

