import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'

describe('GET /v1/markets/exchanges', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t.close())

  it('answers all five exchanges with type and status, charging 1 credit', async () => {
    const { apiKey } = await t.signup()
    const res = await t.get('/v1/markets/exchanges', apiKey)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('x-credits-charged')).toBe('1')
    expect(res.headers.get('x-credits-remaining')).toBe('999')
    const body = (await res.json()) as { data: Record<string, unknown>[]; meta: Record<string, unknown> }
    expect(body.data.map((e) => [e.id, e.name, e.type])).toEqual([
      ['binance', 'Binance', 'CEX'],
      ['bybit', 'Bybit', 'CEX'],
      ['okx', 'OKX', 'CEX'],
      ['hyperliquid', 'Hyperliquid', 'DEX'],
      ['dydx', 'dYdX', 'DEX'],
    ])
    for (const e of body.data) {
      expect(Object.keys(e).sort()).toEqual(['id', 'last_update', 'liquidations', 'name', 'positioning', 'source', 'status', 'status_reason', 'type'])
      // nothing feeds this service (no source started): no venue says where its data comes from
      expect(e.source).toBeNull()
      expect(['operational', 'degraded', 'down']).toContain(e.status)
    }
    // which venues publish liquidations and long/short ratios (issue 18): Hyperliquid publishes no liquidation
    // feed, and neither DEX publishes positioning ratios
    const feeds = (k: string) => body.data.map((e) => [e.id, (e[k] as { published: boolean }).published])
    expect(feeds('liquidations')).toEqual([['binance', true], ['bybit', true], ['okx', true], ['hyperliquid', false], ['dydx', true]])
    expect(feeds('positioning')).toEqual([['binance', true], ['bybit', true], ['okx', true], ['hyperliquid', false], ['dydx', false]])
    const hl = body.data.find((e) => e.id === 'hyperliquid')!
    expect(hl.liquidations).toEqual({ published: false, source: null, note: 'Hyperliquid publishes no public liquidation feed', completeness: 'none', price: null, usd: null, status: null, status_reason: null, up_since: null })
    for (const e of body.data) for (const k of ['liquidations', 'positioning']) {
      const f = e[k] as { published: boolean; source: string | null }
      expect(f.source === null, `${String(e.id)} ${k}: a source exactly when published`).toBe(!f.published)
    }
    expect(body.meta).toEqual({ request_id: res.headers.get('x-request-id'), credits_charged: 1, credits_remaining: 999, as_of: expect.any(Number) })
  })

  it('derives status from feed freshness', async () => {
    const { apiKey } = await t.signup()
    const now = Date.now()
    t.services.market.touch('binance', now)
    t.services.market.touch('okx', now - 60_000)
    const { data } = (await (await t.get('/v1/markets/exchanges', apiKey)).json()) as { data: { id: string; status: string; last_update: number | null; status_reason: string | null }[] }
    const by = Object.fromEntries(data.map((e) => [e.id, e]))
    expect(by.binance!.status).toBe('operational')
    expect(by.binance!.last_update).toBe(now)
    expect(by.okx!.status).toBe('degraded')
    // why a venue is not operational, in words
    expect(by.binance!.status_reason).toBeNull()
    expect(by.okx!.status_reason).toBe('no market event for 60 s')
    expect(by.dydx!.status_reason).toBe('not collected by this deployment (MARKET_SOURCE)')
    t.services.market.degrade('bybit', 'replay: the recording has no response for GET /v5/market/tickers')
    t.services.market.touch('bybit', now)
    const again = (await (await t.get('/v1/markets/exchanges', apiKey)).json()) as { data: { id: string; status: string; status_reason: string | null }[] }
    expect(again.data.find((e) => e.id === 'bybit')).toMatchObject({ status: 'degraded', status_reason: 'replay: the recording has no response for GET /v5/market/tickers' })
    t.services.market.clearDegraded('bybit')
  })

  it('402 with credits_required and credits_remaining when the balance is short, charging nothing', async () => {
    const { apiKey, accountId } = await t.signup()
    await t.setCredits(accountId, 0)
    const res = await t.get('/v1/markets/exchanges', apiKey)
    const body = await expectProblem(res, 402, 'insufficient_credits')
    expect(body).toMatchObject({ status: 402, credits_required: 1, credits_remaining: 0 })
    // in words a person reads: one credit, not "1 credits"
    expect(body.detail).toBe('This call costs 1 credit and the account has 0. Buy credits to continue.')
    expect(res.headers.get('x-credits-charged')).toBe('0')
    // a 2-credit call against one credit
    await t.setCredits(accountId, 1)
    const two = await expectProblem(await t.get('/v1/markets/ohlc?coin=BTC', apiKey), 402, 'insufficient_credits')
    expect(two.detail).toBe('This call costs 2 credits and the account has 1. Buy credits to continue.')
  })

  it('400 for any query parameter (the endpoint takes none)', async () => {
    const { apiKey } = await t.signup()
    const body = await expectProblem(await t.get('/v1/markets/exchanges?coin=BTC', apiKey), 400, 'invalid_parameter')
    expect(body.parameter).toBe('coin')
  })

  it('a failed call charges nothing and the ledger matches the balance', async () => {
    const { apiKey, accountId } = await t.signup()
    await t.get('/v1/markets/exchanges?x=1', apiKey)
    await t.get('/v1/markets/exchanges', apiKey)
    await t.get('/v1/markets/exchanges', apiKey)
    const [acct] = await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
    const [sum] = await t.services.db.sql.query<{ s: number }>('SELECT sum(delta)::int AS s FROM credit_ledger WHERE account_id = $1', [accountId])
    expect(acct!.credits).toBe(998)
    expect(sum!.s).toBe(998)
  })

  it('404 and 405 answer as problem+json', async () => {
    await expectProblem(await t.get('/v1/nope'), 404, 'not_found')
    const res = await t.fetch(`/v1/markets/exchanges`, { method: 'POST' })
    await expectProblem(res, 405, 'method_not_allowed')
    expect(res.headers.get('allow')).toBe('GET')
  })

  it('paths match as Express matches them: a trailing slash and any letter case; HEAD is answered like GET', async () => {
    const { apiKey } = await t.signup()
    for (const path of ['/v1/markets/exchanges/', '/V1/Markets/Exchanges']) {
      const res = await t.get(path, apiKey)
      expect(res.status, path).toBe(200)
      expect(((await res.json()) as { data: unknown[] }).data.length).toBe(5)
    }
    const head = await t.fetch(`/v1/markets/exchanges`, { method: 'HEAD', headers: { authorization: `Bearer ${apiKey}` } })
    expect(head.status).toBe(200)
    await expectProblem(await t.get('/v1/markets/exchanges/extra', apiKey), 404, 'not_found')
  })
})
