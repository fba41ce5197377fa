// The public contract, pinned: on a fixed simulator seed and clock, the REST bodies (analytics, errors, account
// routes), the GraphQL results and the OpenAPI paths of every served endpoint, byte for byte. Values that are random
// by design (request ids, keys, account and key ids) are replaced by placeholders before comparing.
// After an intended change to the contract, rewrite the golden file with UPDATE_GOLDEN=1 and list the change in docs.
import fs from 'node:fs'
import path from 'node:path'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedMarket, TEST_NOW } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'

const GOLDEN = path.join(import.meta.dirname, 'contract.golden.json')
const SECRET = 'whsec_golden'
const OPS = path.join(import.meta.dirname, '..', '..', 'schema', 'operations', 'v1')

/** REST calls of the analytics endpoints: defaults, every parameter, and the errors a caller meets */
const ANALYTICS: string[] = [
  '/v1/markets/exchanges',
  '/v1/markets/ticker',
  '/v1/markets/ticker?coin=btc&exchange=okx',
  '/v1/markets/ohlc?coin=BTC',
  '/v1/markets/ohlc?coin=ETH&exchange=binance&interval=5m&lookback=4h',
  '/v1/markets/ohlc?coin=BTC&interval=15m&lookback=1h&market_type=spot',
  `/v1/markets/ohlc?coin=BTC&interval=1m&lookback=1h&end=${TEST_NOW - 3_600_000}`,
  '/v1/structure/volume-profile?coin=BTC',
  '/v1/structure/volume-profile?coin=ETH&bins=10&lookback=4h&exchange=bybit',
  '/v1/structure/spread',
  '/v1/structure/spread?coin=ETH',
  '/v1/funding/weighted?coin=BTC',
  '/v1/flow/imbalance?coin=BTC',
  '/v1/flow/imbalance?coin=ETH&exchange=hyperliquid',
  '/v1/oi/changes?coin=BTC',
  '/v1/signals/divergence?coin=BTC',
  '/v1/signals/liquidation-cascade?coin=BTC&trigger_price=60000',
  '/v1/signals/snapshot',
  // errors
  '/v1/markets/ohlc',
  '/v1/markets/ohlc?coin=NOPE',
  '/v1/markets/ohlc?coin=BTC&interval=2h',
  '/v1/markets/ohlc?coin=BTC&interval=4h&lookback=1h',
  '/v1/markets/ohlc?coin=BTC&exchange=dydx&market_type=spot',
  '/v1/markets/ohlc?coin=BTC&end=12',
  '/v1/markets/ohlc?coin=BTC&extra=1',
  '/v1/markets/exchanges?x=1',
  '/v1/structure/volume-profile?coin=BTC&bins=0',
  '/v1/structure/volume-profile?coin=BTC&bins=2.5',
  '/v1/signals/liquidation-cascade?coin=BTC',
  '/v1/signals/liquidation-cascade?coin=BTC&trigger_price=-1',
  '/v1/flow/imbalance?exchange=kraken',
  '/v1/markets/ticker?coin=BTC&coin=ETH',
]

/** the liquidation endpoints (issue 18): called last, with an account of their own, so the entries before them stay */
const LIQUIDATION_REST: string[] = [
  '/v1/liquidations/history?coin=BTC&lookback=4h',
  '/v1/liquidations/history?coin=ETH&exchange=okx&interval=15m&lookback=1h&limit=2',
  '/v1/liquidations/orders?coin=BTC&lookback=1h&limit=5',
  '/v1/liquidations/orders?side=up',
]
const LIQUIDATION_GRAPHQL: { op: string; variables: Record<string, unknown> }[] = [
  { op: 'liquidation-history', variables: { coin: 'BTC', interval: 'H4', lookback: 'H24' } },
  { op: 'liquidation-orders', variables: { coin: 'ETH', side: 'LONG', limit: 3 } },
]

/** issue 18, second half: under their own account, after every older entry */
const POSITIONING_REST: string[] = [
  '/v1/positioning/long-short?coin=BTC&lookback=4h',
  '/v1/positioning/long-short?coin=ETH&exchange=hyperliquid&lookback=1h',
  '/v1/positioning/long-short?coin=BTC&exchange=binance&interval=15m&lookback=1h&limit=2',
  '/v1/positioning/long-short?coin=BTC&interval=2h',
  '/v1/liquidations/heatmap?coin=BTC&lookback=4h&bins=10',
  '/v1/liquidations/heatmap?coin=ETH&exchange=okx&interval=4h&lookback=24h&bins=10&range_pct=10',
  '/v1/liquidations/heatmap?coin=BTC&interval=5m',
  '/v1/signals/backtest?coin=BTC&lookback=7d',
  '/v1/signals/backtest?coin=BTC&lookback=1y',
]
const POSITIONING_GRAPHQL: { op: string; variables: Record<string, unknown> }[] = [
  { op: 'long-short', variables: { coin: 'BTC', exchange: 'OKX', interval: 'H1', lookback: 'H4' } },
  { op: 'liquidation-heatmap', variables: { coin: 'BTC', exchange: 'BYBIT', lookback: 'H4', bins: 10 } },
  { op: 'signal-backtest', variables: { coin: 'ETH', backtestLookback: 'D7' } },
]

/** endpoints added since the golden was first recorded (GET /v1/markets/coins) */
const ADDED: string[] = ['/v1/markets/coins', '/v1/markets/coins?coin=eth&exchange=okx', '/v1/markets/coins?exchange=kraken']
const ADDED_GRAPHQL: { op: string; variables: Record<string, unknown> }[] = [{ op: 'coins', variables: { coin: 'BTC' } }]

/** GraphQL: each stored operation with REST-equivalent variables, and the account fields */
// `as` is the key the result is pinned under: the variables as first written (REST values, before GraphQL took enums)
const GRAPHQL: { op: string; variables: Record<string, unknown>; as?: string }[] = [
  { op: 'exchanges', variables: {} },
  { op: 'ticker', variables: { coin: 'BTC' } },
  { op: 'ohlc', variables: { coin: 'BTC', interval: 'M15', lookback: 'H4' }, as: '{"coin":"BTC","interval":"15m","lookback":"4h"}' },
  { op: 'ohlc', variables: { coin: 'ETH', exchange: 'OKX', interval: 'H1', lookback: 'H24', marketType: 'SPOT' }, as: '{"coin":"ETH","exchange":"okx","interval":"1h","lookback":"24h","marketType":"spot"}' },
  { op: 'volume-profile', variables: { coin: 'BTC', bins: 20 } },
  { op: 'spread', variables: { coin: 'BTC' } },
  { op: 'weighted-funding', variables: {} },
  { op: 'imbalance', variables: { coin: 'ETH' } },
  { op: 'oi-changes', variables: {} },
  { op: 'divergence', variables: { coin: 'ETH' } },
  { op: 'liquidation-cascade', variables: { coin: 'ETH', triggerPrice: 2000 } },
  { op: 'snapshot', variables: {} },
  { op: 'ohlc', variables: { coin: 'BTC', interval: 'H4', lookback: 'H1' }, as: '{"coin":"BTC","interval":"4h","lookback":"1h"}' },
]
/**
 * The series endpoints (issue 17), added after the contract above was pinned: called last, with an account of their
 * own, so the entries before them (balances, usage) stay as they were.
 */
const SERIES_REST: string[] = [
  '/v1/flow/cvd?coin=BTC&lookback=4h',
  '/v1/flow/cvd?coin=ETH&exchange=okx&interval=15m&lookback=1h&limit=2',
  '/v1/flow/cvd?coin=BTC&interval=1d',
  '/v1/flow/taker-volume?coin=BTC&interval=4h&lookback=24h',
  '/v1/flow/taker-volume?coin=ETH&exchange=bybit&market_type=spot&interval=15m&lookback=1h',
  '/v1/flow/taker-volume?coin=BTC&exchange=dydx&market_type=spot',
  '/v1/oi/history?coin=BTC&interval=1h&lookback=4h',
  '/v1/oi/history?coin=ETH&exchange=binance&interval=15m&lookback=1h',
  '/v1/funding/history?coin=BTC&interval=4h&lookback=24h',
  '/v1/funding/history?coin=ETH&exchange=dydx&lookback=4h&limit=2',
  '/v1/structure/basis?coin=BTC&lookback=4h',
  '/v1/structure/basis?coin=ETH&exchange=hyperliquid&interval=15m&lookback=1h',
]
const SERIES_GRAPHQL: { op: string; variables: Record<string, unknown> }[] = [
  { op: 'cvd', variables: { coin: 'ETH', interval: 'H1', lookback: 'H4' } },
  { op: 'oi-history', variables: { coin: 'ETH', interval: 'H1', lookback: 'H4' } },
  { op: 'funding-history', variables: { coin: 'ETH', interval: 'H1', lookback: 'H4' } },
  { op: 'basis', variables: { coin: 'BTC', interval: 'M15', lookback: 'H1', exchange: 'OKX' } },
  { op: 'taker-volume', variables: { coin: 'BTC', interval: 'M15', lookback: 'H1', exchange: 'BINANCE' } },
]
/**
 * The endpoints of the series and screener issue, called by an account of their own after everything above, so the
 * entries pinned before them (balances, usage) are unchanged.
 */
const SERIES_ANALYTICS: string[] = [
  '/v1/markets/overview',
  '/v1/markets/overview?sort=change_1h_pct&order=asc',
  '/v1/funding/arbitrage?coin=BTC',
  '/v1/funding/arbitrage?holding_hours=168',
  '/v1/flow/large-trades?min_usd=100000&limit=5',
  '/v1/signals/regime?coin=BTC&lookback=4h',
  '/v1/signals/regime?coin=ETH&interval=4h&lookback=24h&limit=3',
  '/v1/markets/overview?sort=market_cap',
  '/v1/funding/arbitrage?holding_hours=0',
  '/v1/flow/large-trades?min_usd=50000',
  '/v1/signals/regime?coin=BTC&interval=15m',
]
const SCREENER_GRAPHQL: { op: string; variables: Record<string, unknown> }[] = [
  { op: 'markets-overview', variables: { sort: 'FUNDING_8H', order: 'ASC' } },
  { op: 'funding-arbitrage', variables: { coin: 'ETH' } },
  { op: 'large-trades', variables: { minUsd: 100000, limit: 3 } },
  { op: 'regime', variables: { coin: 'BTC', interval: 'H1', lookback: 'H4' } },
]
const ACCOUNT_QUERY = 'query { account { email credits } apiKeys { name revokedAt } usage(days: 7) { days totalCredits calls byEndpoint { endpoint calls credits } byDay { calls credits } recent { endpoint credits } } }'

const VOLATILE = ['request_id', 'requestId', 'api_key', 'apiKey', 'account_id', 'accountId', 'key_id', 'keyId', 'id', 'prefix', 'created_at', 'createdAt', 'last_used_at', 'lastUsedAt', 'revoked_at', 'revokedAt']
/**
 * The text with every fractional number cut to 12 significant digits: the simulator's floats differ in their last
 * digits between V8 versions (Math.exp/log), Node 20 against Node 24; everything else must match byte for byte.
 */
const lastDigits = (text: string) => text.replace(/-?\d+\.\d+(?:e[+-]?\d+)?/g, (n) => String(Number(Number(n).toPrecision(12))))

/** usage is recorded at the store's time, not the service clock */
const USAGE_TIMES = ['ts', 'day']
/** the body text with random-by-design values replaced, key order and number formatting untouched */
function normalize(text: string, extra: readonly string[] = []): string {
  let out = text
  for (const k of [...VOLATILE, ...extra]) out = out.replace(new RegExp(`"${k}":("(?:[^"\\\\]|\\\\.)*"|\\d+)`, 'g'), `"${k}":"<${k}>"`)
  return out
}

describe('golden contract (fixed seed and clock)', () => {
  let t: TestService
  const actual: Record<string, string> = {}

  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW, env: { STRIPE_WEBHOOK_SECRET: SECRET, CURSOR_SECRET: 'golden cursor secret: pins meta.next' } })
    await seedMarket(t, { hours: 6, coins: ['BTC', 'ETH'] })
  })
  afterAll(async () => {
    await t?.close()
  })

  const call = async (method: string, p: string, opts: { key?: string; body?: string; headers?: Record<string, string>; volatile?: string[] } = {}) => {
    const res = await t.fetch(`${p}`, {
      method,
      headers: { ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}), ...(opts.body ? { 'content-type': 'application/json' } : {}), ...opts.headers },
      body: opts.body,
    })
    return `${res.status} ${res.headers.get('content-type') ?? ''} credits=${res.headers.get('x-credits-charged') ?? ''}\n${normalize(await res.text(), opts.volatile)}`
  }

  it('REST, GraphQL and OpenAPI answer as pinned', async () => {
    const signup = await t.fetch(`/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'Golden+Tag@Example.com' }) })
    const s = (await signup.clone().json()) as { data: { api_key: string; account_id: string } }
    actual['POST /v1/auth/signup'] = `${signup.status}\n${normalize(await signup.text())}`
    const key = s.data.api_key

    for (const p of ANALYTICS) actual[`GET ${p}`] = await call('GET', p, { key })
    actual['GET /v1/markets/ticker (no key)'] = await call('GET', '/v1/markets/ticker')
    actual['GET /v1/markets/ticker (bad key)'] = await call('GET', '/v1/markets/ticker', { key: 'pk_live_nope' })

    for (const { op, variables, as } of GRAPHQL) {
      const query = fs.readFileSync(path.join(OPS, `${op}.graphql`), 'utf8')
      actual[`graphql ${op} ${as ?? JSON.stringify(variables)}`] = await call('POST', '/graphql', { key, body: JSON.stringify({ query, variables }) })
    }

    // account routes (free)
    actual['POST /v1/auth/keys'] = await call('POST', '/v1/auth/keys', { key, body: JSON.stringify({ name: 'bot' }) })
    actual['POST /v1/auth/keys (no name)'] = await call('POST', '/v1/auth/keys', { key, body: '{}' })
    const list = (await (await t.fetch(`/v1/auth/keys`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { id: string; name: string }[] }
    actual['GET /v1/auth/keys'] = await call('GET', '/v1/auth/keys', { key })
    actual['DELETE /v1/auth/keys/:id'] = await call('DELETE', `/v1/auth/keys/${list.data.find((k) => k.name === 'bot')!.id}`, { key })
    actual['DELETE /v1/auth/keys/unknown'] = await call('DELETE', '/v1/auth/keys/00000000-0000-0000-0000-000000000000', { key })
    actual['GET /v1/account'] = await call('GET', '/v1/account', { key })
    actual['GET /v1/account/usage?days=7'] = await call('GET', '/v1/account/usage?days=7', { key, volatile: USAGE_TIMES })
    actual['GET /v1/account/usage?days=0'] = await call('GET', '/v1/account/usage?days=0', { key })
    actual['graphql account'] = await call('POST', '/graphql', { key, body: JSON.stringify({ query: ACCOUNT_QUERY }), volatile: USAGE_TIMES })
    const payload = JSON.stringify({ id: 'evt_golden', type: 'checkout.session.completed', data: { object: { metadata: { account_id: s.data.account_id, credits: '250' } } } })
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: Math.floor(TEST_NOW / 1000) })
    actual['POST /v1/billing/webhook'] = await call('POST', '/v1/billing/webhook', { body: payload, headers: { 'stripe-signature': header } })
    actual['POST /v1/billing/webhook (bad signature)'] = await call('POST', '/v1/billing/webhook', { body: payload, headers: { 'stripe-signature': 't=1,v1=00' } })
    // endpoints added after the redesign: called after the account routes so the pinned usage and balances stay as they were
    for (const p of ADDED) actual[`GET ${p}`] = await call('GET', p, { key })
    for (const { op, variables } of ADDED_GRAPHQL) {
      const query = fs.readFileSync(path.join(OPS, `${op}.graphql`), 'utf8')
      actual[`graphql ${op} ${JSON.stringify(variables)}`] = await call('POST', '/graphql', { key, body: JSON.stringify({ query, variables }) })
    }
    actual['GET /v1/markets/exchanges (out of credits)'] = await (async () => {
      await t.setCredits(s.data.account_id, 0)
      return call('GET', '/v1/markets/exchanges', { key })
    })()

    const second = await t.signup('golden-series@example.com')
    for (const p of SERIES_ANALYTICS) actual[`GET ${p}`] = await call('GET', p, { key: second.apiKey })
    for (const { op, variables } of SCREENER_GRAPHQL) {
      const query = fs.readFileSync(path.join(OPS, `${op}.graphql`), 'utf8')
      actual[`graphql ${op} ${JSON.stringify(variables)}`] = await call('POST', '/graphql', { key: second.apiKey, body: JSON.stringify({ query, variables }) })
    }

    const openapi = (await (await t.fetch(`/openapi.json`)).json()) as { paths: Record<string, unknown> }
    actual['openapi paths'] = JSON.stringify(openapi.paths, null, 1)

    const series = (await (await t.fetch(`/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'series@example.com' }) })).json()) as { data: { api_key: string } }
    for (const p of SERIES_REST) actual[`GET ${p}`] = await call('GET', p, { key: series.data.api_key })
    for (const { op, variables } of SERIES_GRAPHQL) {
      const query = fs.readFileSync(path.join(OPS, `${op}.graphql`), 'utf8')
      actual[`graphql ${op} ${JSON.stringify(variables)}`] = await call('POST', '/graphql', { key: series.data.api_key, body: JSON.stringify({ query, variables }) })
    }

    const third = await t.signup('golden-liquidations@example.com')
    for (const p of LIQUIDATION_REST) actual[`GET ${p}`] = await call('GET', p, { key: third.apiKey })
    for (const { op, variables } of LIQUIDATION_GRAPHQL) {
      const query = fs.readFileSync(path.join(OPS, `${op}.graphql`), 'utf8')
      actual[`graphql ${op} ${JSON.stringify(variables)}`] = await call('POST', '/graphql', { key: third.apiKey, body: JSON.stringify({ query, variables }) })
    }

    const fourth = await t.signup('golden-positioning@example.com')
    for (const p of POSITIONING_REST) actual[`GET ${p}`] = await call('GET', p, { key: fourth.apiKey })
    for (const { op, variables } of POSITIONING_GRAPHQL) {
      const query = fs.readFileSync(path.join(OPS, `${op}.graphql`), 'utf8')
      actual[`graphql ${op} ${JSON.stringify(variables)}`] = await call('POST', '/graphql', { key: fourth.apiKey, body: JSON.stringify({ query, variables }) })
    }

    if (process.env.GOLDEN_OUT) fs.writeFileSync(process.env.GOLDEN_OUT, JSON.stringify(actual, null, 1))
    if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(GOLDEN, `${JSON.stringify(actual, null, 1)}\n`)
    const golden = JSON.parse(fs.readFileSync(GOLDEN, 'utf8')) as Record<string, string>
    expect(Object.keys(actual)).toEqual(Object.keys(golden))
    for (const k of Object.keys(golden)) expect(lastDigits(actual[k]!), k).toBe(lastDigits(golden[k]!))
  })
})
