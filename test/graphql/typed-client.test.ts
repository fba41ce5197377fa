import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import { print } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OhlcDocument, TickerDocument, type OhlcQuery, type TickerQuery } from '../../src/graphql/operations.generated.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'

// A typed client over the codegen documents (the same stored operations the REST shim runs): the result type
// follows the operation, and GraphQL answers exactly what REST answers, in camelCase.
describe('typed GraphQL client (graphql-codegen documents)', () => {
  let t: TestService
  let key: string
  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW })
    await seedMarket(t, { hours: 2, coins: ['BTC'] })
    key = (await t.signup()).apiKey
  })
  afterAll(() => t.close())

  async function execute<R, V>(doc: TypedDocumentNode<R, V>, variables: V): Promise<R> {
    const res = await t.fetch(`/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query: print(doc), variables }),
    })
    const body = (await res.json()) as { data: R; errors?: unknown[] }
    if (body.errors) throw new Error(JSON.stringify(body.errors))
    return body.data
  }

  it('ticker and ohlc through typed documents equal the REST payloads', async () => {
    const ticker: TickerQuery = await execute(TickerDocument, { coin: 'BTC', exchange: null })
    const rest = (await (await t.get('/v1/markets/ticker?coin=BTC', key)).json()) as { data: { exchange: string; mark_price: number; funding_interval_hours: number }[] }
    expect(ticker.ticker.map((r) => [r.exchange, r.markPrice, r.fundingIntervalHours])).toEqual(rest.data.map((r) => [r.exchange, r.mark_price, r.funding_interval_hours]))

    const ohlc: OhlcQuery = await execute(OhlcDocument, { coin: 'BTC', exchange: 'OKX', interval: 'M15', lookback: 'H1', marketType: null, end: null, limit: null, cursor: null })
    const restOhlc = (await (await t.get('/v1/markets/ohlc?coin=BTC&exchange=okx&interval=15m&lookback=1h', key)).json()) as { data: { candles: { ts: number; close: number; buy_volume: number }[] } }
    expect(ohlc.ohlc.candles.map((c) => [c.ts, c.close, c.buyVolume])).toEqual(restOhlc.data.candles.map((c) => [c.ts, c.close, c.buy_volume]))
  })
})
