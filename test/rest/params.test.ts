import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'

// Every parameter rule answers 400 invalid_parameter naming the parameter (and its allowed values for
// enumerations) before anything runs, on every analytics path; nothing is charged.
describe('parameter validation', () => {
  let t: TestService
  let key: string
  beforeAll(async () => {
    t = await startTestService()
    key = (await t.signup()).apiKey
  })
  afterAll(() => t.close())

  const EXCHANGES = ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx']
  const cases: [string, string, (string | number)[] | 'COINS' | undefined][] = [
    ['/v1/markets/ohlc', 'coin', undefined], // missing required
    ['/v1/markets/ohlc?coin=NOPE', 'coin', 'COINS'],
    ['/v1/markets/ohlc?coin=BTC&interval=2h', 'interval', ['1m', '5m', '15m', '1h', '4h', '1d']],
    ['/v1/markets/ohlc?coin=BTC&lookback=2d', 'lookback', ['1h', '4h', '24h', '7d', '30d']],
    ['/v1/markets/ohlc?coin=BTC&market_type=option', 'market_type', ['perp', 'spot']],
    ['/v1/markets/ohlc?coin=BTC&exchange=kraken', 'exchange', EXCHANGES],
    ['/v1/markets/ohlc?coin=BTC&interval=4h&lookback=1h', 'interval', ['1m', '5m', '15m', '1h']],
    ['/v1/markets/ohlc?coin=BTC&market_type=spot&exchange=dydx', 'market_type', ['perp']],
    ['/v1/markets/ohlc?coin=BTC&end=yesterday', 'end', undefined],
    ['/v1/markets/ohlc?coin=BTC&coin=ETH', 'coin', 'COINS'],
    ['/v1/markets/ohlc?coin=BTC&intervl=1h', 'intervl', undefined],
    ['/v1/structure/volume-profile?coin=BTC&bins=0', 'bins', undefined],
    ['/v1/structure/volume-profile?coin=BTC&bins=201', 'bins', undefined],
    ['/v1/structure/volume-profile?coin=BTC&bins=1e9', 'bins', undefined],
    ['/v1/structure/volume-profile?coin=BTC&bins=2.5', 'bins', undefined],
    ['/v1/structure/volume-profile?coin=BTC&lookback=1y', 'lookback', ['1h', '4h', '24h', '7d', '30d']],
    ['/v1/signals/liquidation-cascade?coin=BTC', 'trigger_price', undefined],
    ['/v1/signals/liquidation-cascade?coin=BTC&trigger_price=-5', 'trigger_price', undefined],
    ['/v1/signals/liquidation-cascade?coin=BTC&trigger_price=0', 'trigger_price', undefined],
    ['/v1/signals/liquidation-cascade?coin=BTC&trigger_price=NaN', 'trigger_price', undefined],
    ['/v1/signals/liquidation-cascade?coin=BTC&trigger_price=Infinity', 'trigger_price', undefined],
    ['/v1/signals/divergence?coin=DOGEX', 'coin', 'COINS'],
    ['/v1/structure/spread?coin=', 'coin', undefined], // empty = omitted: allowed; replaced below
    ['/v1/funding/weighted?coin=XYZ', 'coin', 'COINS'],
    ['/v1/flow/imbalance?exchange=ftx', 'exchange', EXCHANGES],
    ['/v1/markets/ticker?exchange=BINANCEX', 'exchange', EXCHANGES],
    ['/v1/oi/changes?coin=1', 'coin', 'COINS'],
    ['/v1/signals/snapshot?coin=BTC', 'coin', undefined],
  ]

  it.each(cases.filter(([p]) => p !== '/v1/structure/spread?coin='))('%s → 400 on %s', async (path, parameter, allowed) => {
    const res = await t.get(path, key)
    const body = await expectProblem(res, 400, 'invalid_parameter')
    expect(body.parameter).toBe(parameter)
    if (allowed === 'COINS') expect(body.allowed).toEqual([...t.services.market.coins()])
    else if (allowed) expect(body.allowed).toEqual(allowed)
    expect(String(body.detail).length).toBeGreaterThan(10)
    expect(res.headers.get('x-credits-charged')).toBe('0')
  })

  // issue 31: names of Object.prototype were taken for parameters the endpoint has (and charged for)
  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf', 'isPrototypeOf'])('an unknown parameter named %s → 400 like any other, on REST and on the account routes', async (name) => {
    for (const path of [`/v1/markets/ticker?${name}=1`, `/v1/markets/ohlc?coin=BTC&${name}=1`, `/v1/signals/snapshot?${name}=x`, `/v1/account/usage?${name}=1`]) {
      const res = await t.get(path, key)
      const body = await expectProblem(res, 400, 'invalid_parameter')
      expect(body.parameter, path).toBe(name)
      expect(res.headers.get('x-credits-charged') ?? '0', path).toBe('0')
    }
  })

  it('matches coins and exchanges case-insensitively', async () => {
    for (const path of ['/v1/markets/ohlc?coin=btc&exchange=BINANCE', '/v1/markets/ticker?coin=eTh&exchange=OkX']) {
      const res = await t.get(path, key)
      expect(res.status, path).not.toBe(400)
    }
  })

  it('nothing is charged for any refused call', async () => {
    const fresh = await t.signup()
    for (const [path] of cases) await t.get(path.replace('/v1/structure/spread?coin=', '/v1/structure/spread?coin=NOPE'), fresh.apiKey)
    const [acct] = await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [fresh.accountId])
    const [charges] = await t.services.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'`, [fresh.accountId])
    expect(acct!.credits).toBe(1000)
    expect(charges!.n).toBe(0)
  })
})
