// COINS=all: the universe from the venues' real market lists (/work/shared/fixtures/exchanges, SOURCES.md), loaded
// through each connector's own CCXT instance (the venue's market-list request, answered offline, and CCXT's parser).
// The expected membership is derived independently, from the raw payloads' own fields, never from the code under test.
import type { MarketInterface } from 'ccxt'
import { describe, expect, it } from 'vitest'
import { multiplierOf, universeOf } from '../../../src/sources/universe/universe.js'
import type { ExchangeId } from '../../../src/domain/exchanges.js'
import { fixture } from '../connectors/offline.js'
import { binanceExchangeInfo, binanceInfo, binanceSymbols, bybitList, dydxMarkets, hlMetaAndCtxs, hlUniverse, listed, okxList, type Raw } from './lists.js'

/** the coin names each raw list holds as a USDT or USDC linear perpetual, read from the payloads' own fields */
function rawNames(): Record<ExchangeId, string[]> {
  return {
    binance: binanceSymbols.filter((s) => !s.includes('_') && s.endsWith('USDT')).map((s) => s.slice(0, -4)),
    bybit: bybitList.filter((i) => i.contractType === 'LinearPerpetual' && ['USDT', 'USDC'].includes(i.settleCoin) && i.status === 'Trading').map((i) => i.baseCoin),
    okx: okxList.filter((d) => d.ctType === 'linear' && ['USDT', 'USDC'].includes(d.settleCcy) && d.state === 'live').map((d) => d.ctValCcy),
    hyperliquid: hlUniverse.filter((u) => u['isDelisted'] !== true).map((u) => u['name']),
    dydx: dydxMarkets.filter((m) => m['status'] === 'ACTIVE').map((m) => String(m['ticker']).split('-')[0]!),
  }
}

describe('the universe from the venues\' recorded market lists', () => {
  it('holds exactly the coins two or more raw lists name (multiplier markets aside), each with its venues', async () => {
    const u = universeOf(await listed())
    // independently: count the venues naming each coin in the raw payloads; 1000SHIB, 1000XEC and kPEPE quote lots of 1 000 coins
    const lots = new Set(['1000SHIB', '1000XEC', 'kPEPE'])
    const count = new Map<string, ExchangeId[]>()
    for (const [e, names] of Object.entries(rawNames()) as [ExchangeId, string[]][])
      for (const n of new Set(names)) if (!lots.has(n)) count.set(n, [...(count.get(n) ?? []), e])
    const expected = [...count].filter(([, v]) => v.length >= 2).map(([coin, venues]) => ({ coin, venues })).sort((a, b) => a.coin.localeCompare(b.coin))
    expect(u.coins).toEqual(expected)
    expect(u.venues).toEqual(['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'])
    // by hand: BTC, ETH and SOL are on every list; ATOM, MATIC, DYDX, DOGE and LINK on Binance 2021 and Hyperliquid 2023 only
    const by = new Map(u.coins.map((c) => [c.coin, c.venues]))
    for (const c of ['BTC', 'ETH', 'SOL']) expect(by.get(c)).toEqual(['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'])
    for (const c of ['ATOM', 'MATIC', 'DYDX', 'DOGE', 'LINK']) expect(by.get(c)).toEqual(['binance', 'hyperliquid'])
    // Hyperliquid-only (APT, ARB, SUI in 2023) and Binance-only coins (SUSHI, 1INCH) are out; no lot market becomes a coin
    for (const c of ['APT', 'ARB', 'SUI', 'SUSHI', '1INCH', 'SHIB', '1000SHIB', 'PEPE', 'KPEPE', 'XEC']) expect(by.has(c)).toBe(false)
    expect(u.excluded.map((x) => [x.exchange, x.name, x.symbol, x.reason, x.multiplier])).toEqual([
      ['binance', '1000SHIBUSDT', '1000SHIB/USDT:USDT', 'multiplier', 1000],
      ['binance', '1000XECUSDT', '1000XEC/USDT:USDT', 'multiplier', 1000],
      ['hyperliquid', 'kPEPE', 'KPEPE/USDC:USDC', 'multiplier', 1000],
    ])
    // BUSD-margined perps (BTCBUSD, SOLBUSD…) are not the universe's: ADA is on Binance in USDT only, so still one venue
    expect(binanceSymbols).toContain('ADABUSD')
    expect(by.has('ADA')).toBe(false)
  })

  it("reads each venue's naming: Bybit USDC perps (BTCPERP), OKX and dYdX tickers; inverse, inactive and delisted markets do not count", async () => {
    const bybitBtc = bybitList.find((i) => i.symbol === 'BTCUSDT')!
    const okxBtc = okxList.find((d) => d.instId === 'BTC-USDT-SWAP')!
    const dydxBtc = dydxMarkets.find((m) => m['ticker'] === 'BTC-USD')!
    // recorded instruments with only their naming fields (and status) changed
    const bybit = { ...(fixture('bybit/instruments.json') as Raw) }
    bybit['result'] = { ...bybit['result'], list: [...bybitList, { ...bybitBtc, symbol: 'ATOMPERP', baseCoin: 'ATOM', quoteCoin: 'USDC', settleCoin: 'USDC' }, { ...bybitBtc, symbol: 'APTUSDT', baseCoin: 'APT', status: 'Closed' }] }
    const okx = { ...(fixture('okx/instruments.json') as Raw), data: [...okxList, { ...okxBtc, instId: 'ARB-USD-SWAP', ctType: 'inverse', ctVal: '10', ctValCcy: 'USD', settleCcy: 'ARB', uly: 'ARB-USD' }, { ...okxBtc, instId: 'SUI-USDC-SWAP', ctValCcy: 'SUI', settleCcy: 'USDC', uly: 'SUI-USDC' }] }
    const dydx = { markets: Object.fromEntries([...dydxMarkets.map((m) => [m['ticker'], m['ticker'] === 'SOL-USD' ? { ...m, status: 'FINAL_SETTLEMENT' } : m]), ['ARB-USD', { ...dydxBtc, ticker: 'ARB-USD', clobPairId: '99' }]]) }
    const hl = hlUniverse.map((u) => (u['name'] === 'DOGE' ? { ...u, isDelisted: true } : u))
    const u = universeOf(await listed({ bybit: JSON.stringify(bybit), okx: JSON.stringify(okx), dydx: JSON.stringify(dydx), hyperliquid: hlMetaAndCtxs(hl) }))
    const by = new Map(u.coins.map((c) => [c.coin, c.venues]))
    expect(by.get('ATOM')).toEqual(['binance', 'bybit', 'hyperliquid']) // Bybit's ATOMPERP is a USDC linear perp of ATOM
    expect(by.get('SUI')).toEqual(['okx', 'hyperliquid']) // OKX SUI-USDC-SWAP
    expect(by.get('ARB')).toEqual(['hyperliquid', 'dydx']) // OKX ARB-USD-SWAP is inverse: not counted
    expect(by.has('APT')).toBe(false) // Bybit's APTUSDT is closed: Hyperliquid alone
    expect(by.get('SOL')).toEqual(['binance', 'bybit', 'okx', 'hyperliquid']) // dYdX SOL-USD in final settlement
    expect(by.has('DOGE')).toBe(false) // Hyperliquid's DOGE delisted (isDelisted): Binance alone
  })

  it('a multiplier market is not its coin: 1000PEPE on Binance and Bybit and kPEPE on Hyperliquid leave PEPE with OKX and dYdX', async () => {
    const btcB = binanceInfo.symbols.find((s) => s.symbol === 'BTCUSDT')!
    const bybitBtc = bybitList.find((i) => i.symbol === 'BTCUSDT')!
    const okxBtc = okxList.find((d) => d.instId === 'BTC-USDT-SWAP')!
    const dydxBtc = dydxMarkets.find((m) => m['ticker'] === 'BTC-USD')!
    const bybit = { ...(fixture('bybit/instruments.json') as Raw) }
    bybit['result'] = { ...bybit['result'], list: [...bybitList, { ...bybitBtc, symbol: '1000PEPEUSDT', baseCoin: '1000PEPE' }, { ...bybitBtc, symbol: 'SHIB1000USDT', baseCoin: 'SHIB1000' }] }
    const okx = { ...(fixture('okx/instruments.json') as Raw), data: [...okxList, { ...okxBtc, instId: 'PEPE-USDT-SWAP', ctVal: '10000000', ctValCcy: 'PEPE', uly: 'PEPE-USDT' }] }
    const dydx = { markets: Object.fromEntries([...dydxMarkets.map((m) => [m['ticker'], m]), ['PEPE-USD', { ...dydxBtc, ticker: 'PEPE-USD', clobPairId: '98' }]]) }
    const u = universeOf(
      await listed({
        binance: binanceExchangeInfo([{ ...btcB, symbol: '1000PEPEUSDT', pair: '1000PEPEUSDT', baseAsset: '1000PEPE' }]),
        bybit: JSON.stringify(bybit),
        okx: JSON.stringify(okx),
        dydx: JSON.stringify(dydx),
      }),
    )
    const by = new Map(u.coins.map((c) => [c.coin, c.venues]))
    expect(by.get('PEPE')).toEqual(['okx', 'dydx'])
    expect(by.has('1000PEPE')).toBe(false)
    expect(u.excluded.filter((x) => x.reason === 'multiplier').map((x) => [x.exchange, x.name, x.multiplier])).toEqual([
      ['binance', '1000PEPEUSDT', 1000],
      ['binance', '1000SHIBUSDT', 1000],
      ['binance', '1000XECUSDT', 1000],
      ['bybit', '1000PEPEUSDT', 1000],
      ['bybit', 'SHIB1000USDT', 1000],
      ['hyperliquid', 'kPEPE', 1000],
    ])
    // OKX lists PEPE in contracts of ctVal coins: a contract size (mapped by the connector), not a renamed coin
    expect(u.excluded.some((x) => x.exchange === 'okx')).toBe(false)
  })

  it('a venue whose list could not be loaded keeps the coins it listed when last seen', async () => {
    const lists: Partial<Record<ExchangeId, MarketInterface[]>> = await listed()
    delete lists.hyperliquid
    const without = universeOf(lists)
    expect(without.venues).toEqual(['binance', 'bybit', 'okx', 'dydx'])
    expect(without.coins.some((c) => c.coin === 'ATOM')).toBe(false)
    const kept = universeOf(lists, { fallback: { hyperliquid: new Set(['ATOM', 'BTC']) } })
    expect(kept.coins.find((c) => c.coin === 'ATOM')!.venues).toEqual(['binance', 'hyperliquid'])
    expect(kept.coins.find((c) => c.coin === 'BTC')!.venues).toEqual(['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'])
  })

  it('multipliers: the lot prefixes and suffixes the venues use, and nothing else', () => {
    expect(multiplierOf('binance', '1000PEPE')).toBe(1000)
    expect(multiplierOf('binance', '1000000MOG')).toBe(1_000_000)
    expect(multiplierOf('binance', '1MBABYDOGE')).toBe(1_000_000)
    expect(multiplierOf('bybit', '10000000AIDOGE')).toBe(10_000_000)
    expect(multiplierOf('bybit', 'SHIB1000')).toBe(1000)
    expect(multiplierOf('hyperliquid', 'kPEPE')).toBe(1000)
    for (const plain of ['1INCH', 'BTC', 'KAVA', 'KSM', 'C98', 'T', 'XEC']) expect(multiplierOf('binance', plain)).toBeNull()
    // a lower-case k means a lot on Hyperliquid only; KAVA and KNC are plain coins everywhere
    expect(multiplierOf('hyperliquid', 'KAVA')).toBeNull()
  })
})
