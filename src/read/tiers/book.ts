// The leverage-tier table each venue's cascade map uses, per coin: the live table a connector fetched (fresh for
// TIER_LIVE_MAX_AGE_MS), else a shipped recorded copy of a real venue payload, else the documented default.
// Sources and the model: docs/methodology.md#leverage-tiers.
import fs from 'node:fs'
import path from 'node:path'
import { DEFAULT_TIERS, type LeverageTier, type TierTable } from '../../analytics/leverage-tiers.js'
import { ROOT } from '../../paths.js'
import { parseBinanceBrackets, parseDydxMarginFractions, hyperliquidTiers } from './venue-tables.js'
import type { ExchangeId } from '../../domain/exchanges.js'

/** a live table older than this falls back to the recorded/default one (the refresh runs hourly) */
export const TIER_LIVE_MAX_AGE_MS = 6 * 3600_000

const RECORDED = path.join(ROOT, 'src', 'read', 'tiers', 'recorded')

/** Hyperliquid's mainnet margin tiers as its documentation lists them: [lower bound USD, max leverage] */
const HYPERLIQUID_DOCUMENTED: Record<string, [number, number][]> = {
  BTC: [[0, 40], [150e6, 20]],
  ETH: [[0, 25], [100e6, 15]],
  SOL: [[0, 20], [70e6, 10]],
  XRP: [[0, 20], [40e6, 10]],
  ...Object.fromEntries(['DOGE', 'SUI', 'LTC', 'LINK', 'AVAX', 'ADA'].map((c) => [c, [[0, 10], [20e6, 5]] as [number, number][]])),
  ...Object.fromEntries(['BNB', 'DOT'].map((c) => [c, [[0, 10], [3e6, 5]] as [number, number][]])),
}
const HYPERLIQUID_DOCS = 'https://hyperliquid.gitbook.io/hyperliquid-docs/trading/margin-tiers'

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(path.join(RECORDED, file), 'utf8'))
  } catch {
    return null
  }
}

/** the shipped tables: real recorded payloads (Binance, dYdX) and Hyperliquid's documented tiers */
function shippedTables(): Map<string, TierTable> {
  const out = new Map<string, TierTable>()
  const binance = readJson('binance-leverage-brackets.json') as Record<string, unknown[]> | null
  for (const [symbol, rows] of Object.entries(binance ?? {})) {
    const tiers = parseBinanceBrackets(rows as never)
    if (tiers.length)
      out.set(`binance:${symbol.split('/')[0]}`, {
        tiers, unit: 'usd', source: 'recorded', asOf: Date.UTC(2024, 9, 24),
        note: 'Binance GET /fapi/v1/leverageBracket (signed), recorded 2024-10-24 through CCXT fetchLeverageTiers (freqtrade binance_leverage_tiers.json)',
      })
  }
  const dydx = readJson('dydx-perpetual-markets.json') as { result?: unknown; isoTimestamp?: string } | null
  for (const [coin, tiers] of parseDydxMarginFractions(dydx?.result)) {
    out.set(`dydx:${coin}`, {
      tiers, unit: 'usd', source: 'recorded', asOf: dydx?.isoTimestamp ? Date.parse(dydx.isoTimestamp) : null,
      note: 'dYdX GET /v4/perpetualMarkets initialMarginFraction / maintenanceMarginFraction, recorded 2025-12-08 (nautilus_trader test data)',
    })
  }
  for (const [coin, steps] of Object.entries(HYPERLIQUID_DOCUMENTED))
    out.set(`hyperliquid:${coin}`, {
      tiers: hyperliquidTiers(steps.map(([lower, lev]) => ({ lower, lev }))), unit: 'usd', source: 'default', asOf: null,
      note: `Hyperliquid mainnet margin tiers as documented at ${HYPERLIQUID_DOCS}`,
    })
  return out
}

let shipped: Map<string, TierTable> | null = null

export class TierBook {
  private readonly live = new Map<string, TierTable>()

  /** a table a connector just fetched */
  set(exchange: ExchangeId, coin: string, tiers: LeverageTier[], unit: TierTable['unit'], note: string, at: number): void {
    if (tiers.length) this.live.set(`${exchange}:${coin}`, { tiers, unit, source: 'live', note, asOf: at })
  }

  /** the table the cascade uses for this venue and coin at `now` */
  get(exchange: ExchangeId, coin: string, now: number): TierTable {
    const key = `${exchange}:${coin}`
    const live = this.live.get(key)
    if (live && live.asOf !== null && now - live.asOf <= TIER_LIVE_MAX_AGE_MS) return live
    shipped ??= shippedTables()
    return (
      shipped.get(key) ?? {
        tiers: [...DEFAULT_TIERS], unit: 'usd', source: 'default', asOf: null,
        note: 'no table for this venue and coin: one tier, 0.5 % maintenance margin, up to 100x',
      }
    )
  }
}
