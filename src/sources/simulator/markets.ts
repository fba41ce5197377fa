// The simulated markets and their per-market constants: volume and trade rate from the calibration in params.ts,
// tick and lot grids, half spread, venue basis, and the hash keys that seed each market's random streams.
import { type ExchangeId, EXCHANGES, type MarketType } from '../../domain/exchanges.js'
import { DEFAULT_COINS } from '../../domain/coins.js'
import { type MarketKey } from '../../domain/minute-bars.js'
import { HOUR_MS } from '../../domain/time.js'
import { gaussHash, hash2, hashString } from './rng.js'
import { MODEL, TRADE_SIZE_EXPONENT, VENUE_PARAMS, coinParams, tickInverse, type VenueParams } from './params.js'

export interface SimMarket extends MarketKey {
  index: number
  coinIndex: number
  isPerp: boolean
  venue: VenueParams
  fundingHours: number
  fundingMs: number
  tickInv: number
  lotInv: number
  /** half spread as a fraction of mid (calm and normal regimes) */
  halfSpread: number
  /** mean USD volume and mean trade count per minute at activity 1 */
  notionalPerMin: number
  tradesPerMin: number
  oiShare: number
  basisSd: number
  basisOffset: number
  planKey: number
  tradeKey: number
  barKey: number
  bookKey: number
  basisKey: number
  basisKey2: number
  idxKey: number
  actKey: number
  asymKey: number
  oiKey: number
  /** for the hour in relHour: mid / fair and index / fair at the hour's 61 minute boundaries */
  rel: Float64Array
  idx: Float64Array
  relHour: number
}

/** the coin's daily volume of this market type over all venues, USD */
const coinVolume = (coin: string, mt: MarketType) => (mt === 'perp' ? coinParams(coin).perpVolumeUsd : coinParams(coin).spotVolumeUsd)

/** mean USD volume per minute of one market */
function marketNotionalPerMin(coin: string, ex: ExchangeId, mt: MarketType): number {
  const v = VENUE_PARAMS[ex]
  return (coinVolume(coin, mt) * (mt === 'perp' ? v.perpVolumeShare : v.spotVolumeShare)) / 1440
}

/** mean notional per trade of one market, USD: the venue's BTC figure scaled by the coin's relative size */
function marketTradeUsd(coin: string, ex: ExchangeId, mt: MarketType): number {
  const v = VENUE_PARAMS[ex]
  const btc = mt === 'perp' ? v.perpTradeUsd : v.spotTradeUsd
  return btc * (coinVolume(coin, mt) / coinVolume('BTC', mt)) ** TRADE_SIZE_EXPONENT
}

const BTC_NOTIONAL = marketNotionalPerMin('BTC', 'binance', 'perp')

/** every market the simulator covers for these coins: perps on all five venues, spot on the CEXes */
export function simulatedMarkets(coins: readonly string[] = DEFAULT_COINS): MarketKey[] {
  return coins.flatMap((coin) => EXCHANGES.flatMap((e) => e.marketTypes.map((marketType) => ({ exchange: e.id, coin, marketType }))))
}

export function buildMarkets(seed: number, coins: readonly string[]): SimMarket[] {
  const out: SimMarket[] = []
  coins.forEach((coin, coinIndex) => {
    const cp = coinParams(coin)
    for (const e of EXCHANGES) {
      for (const marketType of e.marketTypes) {
        const venue = VENUE_PARAMS[e.id]
        const isPerp = marketType === 'perp'
        const key = hash2(seed, hashString(`${e.id}:${coin}:${marketType}`))
        const notional = marketNotionalPerMin(coin, e.id, marketType)
        // thinner markets quote wider: half spread grows with sqrt(BTC notional / market notional), capped at 8 bp
        const hs = Math.min(8e-4, MODEL.minHalfSpreadBps * 1e-4 * venue.spreadMult * Math.sqrt(BTC_NOTIONAL / notional)) * (isPerp ? 1 : 1.3)
        const tickInv = tickInverse(cp.refPrice)
        const basisSd = venue.basisSd * (isPerp ? 1 : 0.7)
        // lots: perps trade in about 3 significant digits of a coin, spot two decimals finer (BTC 0.001 / 0.00001)
        const lotInv = 10 ** Math.max(0, Math.ceil(Math.log10(cp.refPrice)) - 2 + (isPerp ? 0 : 2))
        out.push({
          exchange: e.id,
          coin,
          marketType,
          index: out.length,
          coinIndex,
          isPerp,
          venue,
          fundingHours: e.fundingIntervalHours,
          fundingMs: e.fundingIntervalHours * HOUR_MS,
          tickInv,
          lotInv,
          halfSpread: Math.max(hs, 0.5 / (tickInv * cp.refPrice)),
          notionalPerMin: notional,
          tradesPerMin: notional / marketTradeUsd(coin, e.id, marketType),
          oiShare: venue.oiShare,
          basisSd,
          basisOffset: 0.5 * basisSd * gaussHash(key, 7),
          planKey: hash2(key, 1),
          tradeKey: hash2(key, 2),
          bookKey: hash2(key, 3),
          basisKey: hash2(key, 4),
          basisKey2: hash2(key, 5),
          idxKey: hash2(key, 6),
          actKey: hash2(key, 8),
          asymKey: hash2(key, 9),
          oiKey: hash2(key, 10),
          barKey: hash2(key, 11),
          rel: new Float64Array(61),
          idx: new Float64Array(61),
          relHour: -1,
        })
      }
    }
  })
  return out
}
