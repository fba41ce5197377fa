// Leverage tiers of the five venues: the parsers on the real recorded payloads where they exist
// (binance/tiers.json, dydx/perpetual_markets.json) and, where no recording exists (SOURCES.md: no recorded OKX
// position-tiers for SWAP, Bybit risk-limit or Hyperliquid `meta` with marginTables), on the venue's documented
// example, said so at each; the connectors' fetch methods through CCXT's own fetch path (offline harness); and the
// tier book's fallbacks (live, recorded, documented default).
import ccxt from 'ccxt'
import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_TIERS } from '../../../src/analytics/leverage-tiers.js'
import { BybitConnector } from '../../../src/sources/connectors/bybit.js'
import { DydxConnector } from '../../../src/sources/connectors/dydx.js'
import { HyperliquidConnector } from '../../../src/sources/connectors/hyperliquid.js'
import { OkxConnector } from '../../../src/sources/connectors/okx.js'
import {
  hyperliquidTiers,
  parseBinanceBrackets,
  parseBybitRiskLimit,
  parseDydxMarginFractions,
  parseHyperliquidMarginTiers,
  parseOkxPositionTiers,
} from '../../../src/read/tiers/venue-tables.js'
import { TIER_LIVE_MAX_AGE_MS, TierBook } from '../../../src/read/tiers/book.js'
import { refreshTiers } from '../../../src/read/tiers/refresh.js'
import { dydxBody, fixture, fixtureText, offlineHttp, RecordingSink } from '../../sources/connectors/offline.js'

const OFF = { trades: false, books: false, tickers: false, openInterest: false, funding: false }
const running: { stop(): Promise<void> }[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()))
})

/** OKX docs, Get position tiers, "Response Example" (https://www.okx.com/docs-v5/en/#public-data-rest-api-get-position-tiers): a MARGIN row, same fields as SWAP */
const OKX_DOC = '{"code":"0","msg":"","data":[{"baseMaxLoan":"50","imr":"0.1","instId":"BTC-USDT","maxLever":"10","maxSz":"50","minSz":"0","mmr":"0.03","optMgnFactor":"0","quoteMaxLoan":"500000","tier":"1","uly":"","instFamily":""}]}'
/** Bybit v5 docs, Get Risk Limit, "Response Example" (https://bybit-exchange.github.io/docs/v5/market/risk-limit): inverse BTCUSD, rates in percent */
const BYBIT_DOC = '{"retCode":0,"retMsg":"OK","result":{"category":"inverse","list":[{"id":1,"symbol":"BTCUSD","riskLimitValue":"150","maintenanceMargin":"0.5","initialMargin":"1","isLowestRisk":1,"maxLeverage":"100.00","mmDeduction":""}]},"retExtInfo":{},"time":1672054488010}'
/** Bybit v3 docs' linear example rows (riskLimit list for BTCUSDT, https://bybit-exchange.github.io/docs/derivatives/), in the v5 field names: fractions */
const BYBIT_LINEAR_DOC = '{"retCode":0,"retMsg":"OK","result":{"category":"linear","list":[{"id":1,"symbol":"BTCUSDT","riskLimitValue":"2000000","maintenanceMargin":"0.005","initialMargin":"0.01","isLowestRisk":1,"maxLeverage":"100.00","mmDeduction":""}]},"time":1657797260220}'
/** Hyperliquid docs, Info endpoint / Perpetuals, "Retrieve perpetuals metadata" example (https://hyperliquid.gitbook.io/hyperliquid-docs/for-developers/api/info-endpoint/perpetuals) */
const HL_META_DOC = {
  universe: [
    { name: 'BTC', szDecimals: 5, maxLeverage: 50 },
    { name: 'ETH', szDecimals: 4, maxLeverage: 50 },
    { name: 'HPOS', szDecimals: 0, maxLeverage: 3, onlyIsolated: true },
    { name: 'LOOM', szDecimals: 1, maxLeverage: 3, onlyIsolated: true, isDelisted: true },
  ],
  marginTables: [
    [50, { description: '', marginTiers: [{ lowerBound: '0.0', maxLeverage: 50 }] }],
    [51, { description: 'tiered 10x', marginTiers: [{ lowerBound: '0.0', maxLeverage: 10 }, { lowerBound: '3000000.0', maxLeverage: 5 }] }],
  ],
}

describe('Binance leverage brackets (binance/tiers.json: a real recorded GET /fapi/v1/leverageBracket, via CCXT)', () => {
  const recorded = fixture<Record<string, { info: Record<string, string> }[]>>('binance/tiers.json')

  it('each bracket from its raw `info`: notionalFloor..notionalCap, maintMarginRatio, initialLeverage, cum; the last one open-ended', () => {
    for (const [symbol, rows] of Object.entries(recorded)) {
      const tiers = parseBinanceBrackets(rows)
      expect(tiers, symbol).toHaveLength(rows.length)
      rows.forEach((r, i) => {
        expect(tiers[i], `${symbol} bracket ${r.info.bracket}`).toEqual({
          minNotional: Number(r.info.notionalFloor),
          maxNotional: i === rows.length - 1 ? Infinity : Number(r.info.notionalCap),
          maintenanceMarginRate: Number(r.info.maintMarginRatio),
          maxLeverage: Number(r.info.initialLeverage),
          maintenanceAmount: Number(r.info.cum),
        })
      })
    }
    expect(parseBinanceBrackets(recorded['BTC/USDT:USDT']!)[0]).toMatchObject({ maxNotional: 50_000, maintenanceMarginRate: 0.004, maxLeverage: 125 })
  })

  it('the recorded cum is the continuity amount: cum_n = cum_{n-1} + floor_n · (mmr_n − mmr_{n-1})', () => {
    for (const rows of Object.values(recorded))
      for (let i = 1; i < rows.length; i++) {
        const [a, b] = [rows[i - 1]!.info, rows[i]!.info]
        expect(Number(b.cum)).toBeCloseTo(Number(a.cum) + Number(b.notionalFloor) * (Number(b.maintMarginRatio) - Number(a.maintMarginRatio)), 6)
      }
  })
})

describe('dYdX margin fractions (dydx/perpetual_markets.json: a real recorded GET /v4/perpetualMarkets)', () => {
  it('one tier per market: max leverage 1 / initialMarginFraction, maintenance rate maintenanceMarginFraction', () => {
    const markets = fixture('dydx/perpetual_markets.json').result.markets as Record<string, Record<string, string>>
    const parsed = parseDydxMarginFractions({ markets })
    expect([...parsed.keys()]).toEqual(['BTC', 'ETH', 'SOL'])
    for (const [ticker, m] of Object.entries(markets))
      expect(parsed.get(ticker.replace('-USD', ''))).toEqual([
        { minNotional: 0, maxNotional: Infinity, maintenanceMarginRate: Number(m['maintenanceMarginFraction']), maxLeverage: 1 / Number(m['initialMarginFraction']), maintenanceAmount: 0 },
      ])
    expect(parsed.get('BTC')![0]).toMatchObject({ maintenanceMarginRate: 0.012, maxLeverage: 50 })
  })

  it('the connector reads them from the same body it polls', async () => {
    const ex = new ccxt.pro.dydx()
    offlineHttp(ex, [['/v4/perpetualMarkets', dydxBody('dydx/perpetual_markets.json')]])
    const c = new DydxConnector({ coins: ['BTC', 'SOL'], sink: new RecordingSink(), ccxtExchange: ex, streams: OFF })
    running.push(c)
    await c.start()
    const got = await c.fetchLeverageTiers()
    expect(got.map((t) => [t.coin, t.unit, t.tiers[0]!.maxLeverage, t.tiers[0]!.maintenanceMarginRate])).toEqual([
      ['BTC', 'usd', 50, 0.012],
      ['SOL', 'usd', 20, 0.03],
    ])
  })
})

describe('OKX position tiers (no recorded SWAP body exists: the documented example)', () => {
  it('minSz..maxSz are contracts: bounds in coins = contracts × ctVal; mmr, maxLever; no deduction', () => {
    expect(parseOkxPositionTiers(JSON.parse(OKX_DOC), 0.01)).toEqual([{ minNotional: 0, maxNotional: Infinity, maintenanceMarginRate: 0.03, maxLeverage: 10, maintenanceAmount: 0 }])
    // two rows as OKX numbers them (the second starts one contract above the first's cap): contiguous after parsing
    const two = { data: [{ tier: '1', minSz: '0', maxSz: '2000', mmr: '0.004', maxLever: '100' }, { tier: '2', minSz: '2001', maxSz: '4000', mmr: '0.005', maxLever: '75' }] }
    expect(parseOkxPositionTiers(two, 0.01).map((t) => [t.minNotional, t.maxNotional, t.maintenanceMarginRate, t.maxLeverage])).toEqual([
      [0, 20, 0.004, 100],
      [20, Infinity, 0.005, 75],
    ])
  })

  it('the connector asks GET /api/v5/public/position-tiers for isolated SWAP tiers of the instrument family, in coins (ctVal from the recorded instrument)', async () => {
    const ex = new ccxt.pro.okx()
    const requests = offlineHttp(ex, [
      ['/api/v5/public/instruments?instType=SWAP', fixtureText('okx/instruments.json')],
      ['/api/v5/public/position-tiers', OKX_DOC],
    ])
    const c = new OkxConnector({ coins: ['BTC'], sink: new RecordingSink(), ccxtExchange: ex, marketTypes: ['perp'], streams: OFF })
    running.push(c)
    await c.start()
    const got = await c.fetchLeverageTiers()
    const q = new URL(requests.find((r) => r.url.includes('position-tiers'))!.url).searchParams
    expect(Object.fromEntries(q)).toEqual({ instType: 'SWAP', tdMode: 'isolated', instFamily: 'BTC-USDT' })
    const ctVal = Number(fixture('okx/instruments.json').data.find((d: Record<string, string>) => d.instId === 'BTC-USDT-SWAP').ctVal)
    expect(got).toEqual([{ coin: 'BTC', unit: 'coin', note: expect.stringContaining('position-tiers'), tiers: [{ minNotional: 0, maxNotional: Infinity, maintenanceMarginRate: 0.03, maxLeverage: 10, maintenanceAmount: 0 }] }])
    expect(ctVal).toBe(0.01)
  })
})

describe('Bybit risk limits (no recorded body exists: the documented examples)', () => {
  it('each row up to riskLimitValue; rates as fractions, the docs\' percent example scaled; mmDeduction as the maintenance amount', () => {
    expect(parseBybitRiskLimit(JSON.parse(BYBIT_DOC))).toEqual([{ minNotional: 0, maxNotional: Infinity, maintenanceMarginRate: 0.005, maxLeverage: 100, maintenanceAmount: 0 }])
    expect(parseBybitRiskLimit(JSON.parse(BYBIT_LINEAR_DOC))).toEqual([{ minNotional: 0, maxNotional: Infinity, maintenanceMarginRate: 0.005, maxLeverage: 100, maintenanceAmount: 0 }])
    const two = { result: { list: [
      { riskLimitValue: '4000000', maintenanceMargin: '0.01', initialMargin: '0.02', maxLeverage: '50', mmDeduction: '10000' },
      { riskLimitValue: '2000000', maintenanceMargin: '0.005', initialMargin: '0.01', maxLeverage: '100', mmDeduction: '' },
    ] } }
    expect(parseBybitRiskLimit(two)).toEqual([
      { minNotional: 0, maxNotional: 2e6, maintenanceMarginRate: 0.005, maxLeverage: 100, maintenanceAmount: 0 },
      { minNotional: 2e6, maxNotional: Infinity, maintenanceMarginRate: 0.01, maxLeverage: 50, maintenanceAmount: 10_000 },
    ])
  })

  it('the connector asks GET /v5/market/risk-limit?category=linear&symbol=<id> per followed perp', async () => {
    const ex = new ccxt.pro.bybit()
    const requests = offlineHttp(ex, [
      ['/v5/market/instruments-info', fixtureText('bybit/instruments.json')],
      ['/v5/market/risk-limit', BYBIT_LINEAR_DOC],
    ])
    const c = new BybitConnector({ coins: ['BTC'], sink: new RecordingSink(), ccxtExchange: ex, marketTypes: ['perp'], streams: OFF })
    running.push(c)
    await c.start()
    const got = await c.fetchLeverageTiers()
    const q = new URL(requests.find((r) => r.url.includes('risk-limit'))!.url).searchParams
    expect(Object.fromEntries(q)).toEqual({ category: 'linear', symbol: 'BTCUSDT' })
    expect(got.map((t) => [t.coin, t.unit, t.tiers])).toEqual([['BTC', 'usd', parseBybitRiskLimit(JSON.parse(BYBIT_LINEAR_DOC))]])
  })
})

describe('Hyperliquid margin tables (no recorded `meta` with marginTables exists: the documented example)', () => {
  it('maintenance rate = half the initial margin at the tier\'s max leverage; deduction keeps maintenance margin continuous', () => {
    // the docs' BTC table: 40x to 150M, 20x beyond
    const t = hyperliquidTiers([{ lower: 0, lev: 40 }, { lower: 150e6, lev: 20 }])
    expect(t).toEqual([
      { minNotional: 0, maxNotional: 150e6, maintenanceMarginRate: 0.0125, maxLeverage: 40, maintenanceAmount: 0 },
      { minNotional: 150e6, maxNotional: Infinity, maintenanceMarginRate: 0.025, maxLeverage: 20, maintenanceAmount: 150e6 * (0.025 - 0.0125) },
    ])
    // continuous at the bound: 150M × 1.25 % = 150M × 2.5 % − deduction
    expect(150e6 * 0.0125).toBeCloseTo(150e6 * 0.025 - t[1]!.maintenanceAmount, 6)
  })

  it('the documented meta: an entry without a table id keeps its maxLeverage; table ids resolve (listed, or under 50 a single tier)', () => {
    expect(parseHyperliquidMarginTiers(HL_META_DOC, 'BTC')).toEqual([{ minNotional: 0, maxNotional: Infinity, maintenanceMarginRate: 0.01, maxLeverage: 50, maintenanceAmount: 0 }])
    // marginTableId is the universe field the docs name for this (not in their example): table 51 "tiered 10x"
    const withId = { ...HL_META_DOC, universe: [{ name: 'DOGE', szDecimals: 0, maxLeverage: 10, marginTableId: 51 }, { name: 'X', szDecimals: 0, maxLeverage: 3, marginTableId: 3 }] }
    expect(parseHyperliquidMarginTiers(withId, 'DOGE')).toEqual(hyperliquidTiers([{ lower: 0, lev: 10 }, { lower: 3e6, lev: 5 }]))
    expect(parseHyperliquidMarginTiers(withId, 'X')).toEqual(hyperliquidTiers([{ lower: 0, lev: 3 }]))
    expect(parseHyperliquidMarginTiers(withId, 'NOPE')).toBeNull()
  })

  it('the connector posts {"type":"meta"} once for every followed coin', async () => {
    const ex = new ccxt.pro.hyperliquid()
    const meta = fixture<{ universe: object[] }>('hyperliquid/meta.json')
    ex.setMarkets(meta.universe.map((u, i) => ex.parseMarket({ ...u, baseId: i })))
    const requests = offlineHttp(ex, [[(url, body) => url.endsWith('/info') && JSON.parse(body ?? '{}').type === 'meta', JSON.stringify(HL_META_DOC)]])
    const c = new HyperliquidConnector({ coins: ['BTC', 'ETH'], sink: new RecordingSink(), ccxtExchange: ex, streams: OFF })
    running.push(c)
    await c.start()
    const got = await c.fetchLeverageTiers()
    expect(requests.filter((r) => JSON.parse(r.body ?? '{}').type === 'meta')).toHaveLength(1)
    expect(got.map((t) => [t.coin, t.tiers[0]!.maxLeverage])).toEqual([
      ['BTC', 50],
      ['ETH', 50],
    ])
  })
})

describe('the tier book: live when fresh, else the shipped recorded copy, else the documented default', () => {
  const NOW = Date.UTC(2026, 2, 2)

  it('shipped: Binance and dYdX recorded (BTC, ETH, SOL), Hyperliquid\'s documented tiers, the default elsewhere', () => {
    const book = new TierBook()
    const btc = fixture<Record<string, unknown[]>>('binance/tiers.json')['BTC/USDT:USDT']!
    expect(book.get('binance', 'BTC', NOW)).toMatchObject({ source: 'recorded', unit: 'usd', tiers: parseBinanceBrackets(btc as never) })
    expect(book.get('dydx', 'ETH', NOW)).toMatchObject({ source: 'recorded', tiers: [{ maintenanceMarginRate: 0.012, maxLeverage: 50 }] })
    expect(book.get('hyperliquid', 'BTC', NOW)).toMatchObject({ source: 'default', tiers: hyperliquidTiers([{ lower: 0, lev: 40 }, { lower: 150e6, lev: 20 }]) })
    for (const [e, coin] of [['okx', 'BTC'], ['bybit', 'ETH'], ['binance', 'DOGE'], ['dydx', 'XRP']] as const)
      expect(book.get(e, coin, NOW), `${e} ${coin}`).toMatchObject({ source: 'default', asOf: null, tiers: [...DEFAULT_TIERS] })
  })

  it('a refresh stores what a connector fetched; it serves while fresh; a failing venue keeps the shipped table', async () => {
    const book = new TierBook()
    const okx = { exchange: 'okx' as const, fetchLeverageTiers: async () => [{ coin: 'BTC', unit: 'coin' as const, note: 'okx', tiers: parseOkxPositionTiers(JSON.parse(OKX_DOC), 0.01) }] }
    const bad = { exchange: 'bybit' as const, fetchLeverageTiers: async () => Promise.reject(new Error('offline')) }
    const errors: string[] = []
    await refreshTiers([okx, bad], book, () => NOW, (e) => errors.push(e))
    expect(errors).toEqual(['bybit'])
    expect(book.get('okx', 'BTC', NOW)).toMatchObject({ source: 'live', unit: 'coin', asOf: NOW })
    expect(book.get('okx', 'BTC', NOW + TIER_LIVE_MAX_AGE_MS + 1)).toMatchObject({ source: 'default' })
    expect(book.get('bybit', 'BTC', NOW)).toMatchObject({ source: 'default' })
  })
})
