// COINS=all refreshed daily (injected clock and timer): coins join and leave the universe as the venues' recorded market
// lists change; a coin that leaves is delisted (its row and history stay), a venue that fails to answer delists
// nothing, and the running connectors are replaced by ones following the new coins without a restart.
import type { MarketInterface } from 'ccxt'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { EXCHANGE_IDS, type ExchangeId } from '../../../src/domain/exchanges.js'
import type { ExchangeConnector } from '../../../src/sources/connectors/connector.js'
import { MarketState } from '../../../src/read/state.js'
import { followUniverse } from '../../../src/sources/universe/follow.js'
import { UNIVERSE_REFRESH_MS, UNIVERSE_RETRY_MS } from '../../../src/sources/universe/refresh.js'
import type { Database } from '../../../src/store/database.js'
import { openTestStore } from '../../helpers/store.js'
import { listed } from './lists.js'

const silent = { info: () => {}, warn: () => {} }
const DAY0 = Date.UTC(2026, 10, 27, 6)

/** a connector as the runtime sees it: its venue, its market list (or a failure), start and stop */
class FakeConnector {
  started = 0
  stopped = 0
  constructor(
    readonly exchange: ExchangeId,
    readonly coins: string[],
    readonly listOnly: boolean,
    private readonly lists: Map<ExchangeId, MarketInterface[] | Error>,
  ) {}
  async listedPerps(): Promise<MarketInterface[]> {
    const l = this.lists.get(this.exchange)!
    if (l instanceof Error) throw l
    return l
  }
  async start() {
    this.started++
  }
  async stop() {
    this.stopped++
  }
}

describe('the universe, refreshed daily', () => {
  let db: Database
  let market: MarketState
  let recorded: Record<ExchangeId, MarketInterface[]>
  beforeAll(async () => {
    db = await openTestStore()
    market = new MarketState(db, () => DAY0)
    await market.load()
    recorded = await listed()
  })
  afterAll(() => db.close())

  it('adds, delists and keeps coins as the lists change; the connectors follow; the timer is daily', async () => {
    let now = DAY0
    const timers: { fn: () => void; at: number; cancelled: boolean }[] = []
    const schedule = (fn: () => void, ms: number) => {
      const t = { fn, at: now + ms, cancelled: false }
      timers.push(t)
      return () => void (t.cancelled = true)
    }
    /** moves the clock to the next timer and runs it; resolves when that refresh is done */
    const nextDay = async (r: { refresh(): Promise<unknown> }) => {
      const t = timers.filter((x) => !x.cancelled).sort((a, b) => a.at - b.at).shift()!
      timers.splice(timers.indexOf(t), 1)
      now = t.at
      t.fn()
      await r.refresh()
      // the refresh's own continuation schedules the next one
      await new Promise((done) => setImmediate(done))
    }
    const lists = new Map<ExchangeId, MarketInterface[] | Error>(EXCHANGE_IDS.map((e) => [e, recorded[e]]))
    const created: FakeConnector[] = []
    const create = (e: ExchangeId, coins: string[], listOnly = false) => {
      const c = new FakeConnector(e, coins, listOnly, lists)
      created.push(c)
      return c as unknown as ExchangeConnector
    }
    // the venues run here: binance and hyperliquid (the others are listed through list-only connectors)
    const connectors = [create('binance', ['BTC']), create('hyperliquid', ['BTC'])]
    const running = () => connectors.map((c) => c as unknown as FakeConnector)
    const refresh = followUniverse({ db, market, logger: silent, now: () => now, connectors, create, schedule })

    // day 0: the recorded lists
    const first = await refresh.start()
    await new Promise((done) => setImmediate(done))
    expect(first.change!.delisted).toEqual([])
    expect(market.coins()).toEqual(expect.arrayContaining(['ATOM', 'MATIC', 'BTC']))
    expect(timers.map((t) => t.at - DAY0)).toEqual([UNIVERSE_REFRESH_MS])
    // the running connectors were replaced by ones following the universe; list-only ones are never started
    expect(running().map((c) => [c.exchange, c.coins.includes('ATOM'), c.started])).toEqual([['binance', true, 1], ['hyperliquid', true, 1]])
    expect(created.filter((c) => c.listOnly).map((c) => [c.exchange, c.started])).toEqual([['bybit', 0], ['okx', 0], ['dydx', 0]])
    expect(created.slice(0, 2).map((c) => c.stopped)).toEqual([1, 1])

    // day 1: Hyperliquid no longer lists ATOM (Binance alone: delisted);
    // APT stays out; Bybit lists ARB (as does Hyperliquid): ARB joins
    const hl = recorded.hyperliquid.filter((m) => m.base !== 'ATOM')
    const bybitBtc = recorded.bybit.find((m) => m.base === 'BTC')!
    lists.set('hyperliquid', hl)
    lists.set('bybit', [...recorded.bybit, { ...bybitBtc, id: 'ARBUSDT', symbol: 'ARB/USDT:USDT', base: 'ARB', baseId: 'ARB' }])
    await nextDay(refresh)
    expect(now - DAY0).toBe(UNIVERSE_REFRESH_MS)
    const [atom] = await db.prisma.coin.findMany({ where: { symbol: 'ATOM' } })
    expect(atom).toMatchObject({ source: 'universe', venues: ['binance'], delistedAt: new Date(now) })
    const [arb] = await db.prisma.coin.findMany({ where: { symbol: 'ARB' } })
    expect(arb).toMatchObject({ source: 'universe', venues: ['bybit', 'hyperliquid'], delistedAt: null })
    expect(market.delisting('ATOM')).toEqual({ at: now, venues: ['binance'] })
    expect(market.coins()).toContain('ATOM') // still a valid parameter: its history stays readable
    expect(market.listedCoins()).not.toContain('ATOM')
    expect(running().every((c) => c.coins.includes('ARB') && !c.coins.includes('ATOM'))).toBe(true)

    // day 2: Hyperliquid does not answer. MATIC (Binance and Hyperliquid) is not delisted for that: Hyperliquid keeps
    // the coins it listed yesterday. Nothing changed, so the connectors are left alone
    lists.set('hyperliquid', new Error('hyperliquid: ECONNRESET'))
    const before = running()
    await nextDay(refresh)
    expect(market.delisting('MATIC')).toBeNull()
    expect((await db.prisma.coin.findUnique({ where: { symbol: 'MATIC' } }))!.venues).toEqual(['binance', 'hyperliquid'])
    expect(running()).toEqual(before)

    // day 3: Hyperliquid lists ATOM again: relisted
    lists.set('hyperliquid', recorded.hyperliquid)
    await nextDay(refresh)
    expect(market.delisting('ATOM')).toBeNull()
    expect(running().every((c) => c.coins.includes('ATOM'))).toBe(true)

    // day 4: no venue answers: nothing changes, and the next try is in an hour
    for (const e of EXCHANGE_IDS) lists.set(e, new Error('offline'))
    const at = now
    await nextDay(refresh)
    expect(market.listedCoins()).toContain('ATOM')
    expect(timers.filter((t) => !t.cancelled).map((t) => t.at - at)).toEqual([UNIVERSE_REFRESH_MS + UNIVERSE_RETRY_MS])

    // the store fails during a scheduled refresh: logged, and the next try is an hour later (not never)
    lists.set('hyperliquid', recorded.hyperliquid)
    const prisma = db.prisma
    let reads = 0
    db.prisma = new Proxy(prisma, { get: (p, k) => (k === 'coin' ? { findMany: () => (reads++, Promise.reject(new Error('store down'))) } : Reflect.get(p, k)) })
    const failedAt = timers.filter((t) => !t.cancelled).sort((a, b) => a.at - b.at)[0]!.at
    await nextDay(refresh).catch(() => {})
    db.prisma = prisma
    expect(reads).toBe(1)
    expect(timers.filter((t) => !t.cancelled).map((t) => t.at - failedAt)).toEqual([UNIVERSE_RETRY_MS])

    await refresh.stop()
    expect(timers.every((t) => t.cancelled)).toBe(true)
  })
})

describe('COINS=all in the live runtime', () => {
  it("takes the universe from the venues' lists at start (a venue it cannot reach aside) and schedules the next refresh a day later", async () => {
    const { startTestService } = await import('../../helpers/service.js')
    const { startMarketRuntime } = await import('../../../src/sources/runtime.js')
    const ccxt = (await import('ccxt')).default
    const { offlineHttp } = await import('../connectors/offline.js')
    const { binanceExchangeInfo, hlMetaAndCtxs } = await import('./lists.js')
    const t = await startTestService({ env: { MARKET_SOURCE: 'binance,hyperliquid', COINS: 'all' } })
    try {
      // offline instances answering the two venues' market lists; bybit, okx and dydx are listed at their own hosts,
      // which this process cannot reach: their lists fail, and the universe is what Binance and Hyperliquid share
      const instances = { binance: new ccxt.pro.binanceusdm(), hyperliquid: new ccxt.pro.hyperliquid() }
      offlineHttp(instances.binance, [['/fapi/v1/exchangeInfo', binanceExchangeInfo()]])
      offlineHttp(instances.hyperliquid, [[(url, b) => url.endsWith('/info') && JSON.parse(b ?? '{}').type === 'metaAndAssetCtxs', hlMetaAndCtxs()]])
      const timers: number[] = []
      const runtime = await startMarketRuntime(t.services, {
        connectorOptions: (e) => (e === 'binance' || e === 'hyperliquid' ? { ccxtExchange: instances[e], streams: { trades: false, books: false, liquidations: false } } : {}),
        universeSchedule: (_fn, ms) => (timers.push(ms), () => {}),
      })
      try {
        // a first start: the connectors begin on the default coins, then take up the universe
        const r = await runtime.universe!.refresh()
        expect(Object.keys(r.failed).sort()).toEqual(['bybit', 'dydx', 'okx'])
        const market = t.services.market
        expect(market.listedCoins()).toEqual(expect.arrayContaining(['ATOM', 'MATIC', 'DYDX', 'BTC']))
        expect(r.change!.coins.sort()).toEqual(['ATOM', 'AVAX', 'BCH', 'BNB', 'BTC', 'CRV', 'DOGE', 'DYDX', 'ETH', 'FTM', 'LINK', 'LTC', 'MATIC', 'SNX', 'SOL', 'XRP'])
        expect(r.excluded.map((x) => x.name)).toEqual(['1000SHIBUSDT', '1000XECUSDT', 'kPEPE'])
        await vi.waitFor(() => expect(timers).toEqual([24 * 3_600_000]))
      } finally {
        await runtime.stop()
      }
    } finally {
      await t.close()
    }
  })
})
