import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { MINUTE_MS } from '../../src/domain/time.js'
import type { EventSink, MarketEvent } from '../../src/domain/events.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { MarketSimulator } from '../../src/sources/simulator/index.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { PG_TEST_URL, freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { printed, startService } from '../helpers/process.js'
import { expectProblem, startTestService } from '../helpers/service.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'

describe('faults', () => {
  const cleanup: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c()
  })

  it('the store going away gives 503 unavailable and charges nothing; the service recovers when it returns', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const { url, drop } = await freshSchema('faults')
    cleanup.push(drop)
    const proxy = await startTcpProxy(Number(new URL(PG_TEST_URL).port || 5432))
    cleanup.push(() => proxy.close())
    const viaProxy = new URL(url)
    viaProxy.port = String(proxy.port)
    const t = await startTestService({ env: { DATABASE_URL: viaProxy.toString() }, clock: () => TEST_NOW })
    cleanup.push(() => t.close())
    await seedMarket(t, { hours: 1, coins: ['BTC'] })
    const { apiKey, accountId } = await t.signup()
    const balance = async () => {
      const { data } = (await (await t.get('/v1/account', apiKey)).json()) as { data: { credits: number } }
      return data.credits
    }
    expect((await t.get('/v1/markets/ticker?coin=BTC', apiKey)).status).toBe(200)
    expect(await balance()).toBe(999)

    proxy.cut()
    for (const path of ['/v1/markets/exchanges', '/v1/markets/ticker?coin=BTC', '/v1/markets/ohlc?coin=BTC', '/v1/account']) {
      const res = await t.get(path, apiKey)
      const body = await expectProblem(res, 503, 'unavailable')
      expect(String(body.detail)).not.toMatch(/ECONNREFUSED|at .*\.ts/)
    }
    const gql = await t.fetch(`/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: '{"query":"{ exchanges { id } }"}' })
    expect(((await gql.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('unavailable')
    expect((await t.get('/healthz')).status).toBe(503)

    proxy.restore()
    // the pool reconnects on its own: a later call is served
    await vi.waitFor(async () => expect((await t.get('/v1/markets/exchanges', apiKey)).status).toBe(200), { timeout: 5000, interval: 100 })
    expect(await balance()).toBe(998) // ticker (1) + exchanges (1): nothing for the failed calls
    const [ledger] = await t.services.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'`, [accountId])
    expect(ledger!.n).toBe(2)
  })

  /** the store's schema dropped and made again, empty, under the running service (as a database re-created would be) */
  const recreateEmpty = async (url: string) => {
    const schema = new URL(url).searchParams.get('schema')!
    const c = new pg.Client({ connectionString: PG_TEST_URL })
    await c.connect()
    await c.query(`DROP SCHEMA "${schema}" CASCADE; CREATE SCHEMA "${schema}"`)
    await c.end()
  }

  it('a store re-created empty under the running service: 503 saying so on every call, and /healthz and /readyz say why (issue 31)', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const { url, drop } = await freshSchema('recreated')
    cleanup.push(drop)
    const t = await startTestService({ env: { DATABASE_URL: url }, clock: () => TEST_NOW })
    cleanup.push(() => t.close())
    await seedMarket(t, { hours: 1, coins: ['BTC'] })
    const { apiKey } = await t.signup()
    expect((await t.get('/v1/markets/ticker?coin=BTC', apiKey)).status).toBe(200)
    expect((await t.get('/healthz')).status).toBe(200)

    await recreateEmpty(url)
    for (const path of ['/v1/markets/exchanges', '/v1/markets/ohlc?coin=BTC', '/v1/account', '/v1/alerts']) {
      const body = await expectProblem(await t.get(path, apiKey), 503, 'unavailable')
      expect(String(body.detail), path).toMatch(/re-created or emptied/)
    }
    const signup = await t.fetch('/v1/auth/signup', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'after@example.com' }) })
    await expectProblem(signup, 503, 'unavailable')
    const health = await t.get('/healthz')
    expect(health.status).toBe(503)
    expect(await health.json()).toMatchObject({ status: 'unavailable', store: 'postgres', reason: expect.stringMatching(/holds none of the service's tables/) })
    const ready = await t.get('/readyz')
    expect(ready.status).toBe(503)
    expect(await ready.json()).toMatchObject({ status: 'not_ready', store: { reachable: true, tables: false } })
  })

  it('SIGTERM with the store re-created empty: the service says the final flush failed and stops in order, not with a crash (issue 31)', { timeout: 120_000 }, async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const { url, drop } = await freshSchema('recreatedstop')
    cleanup.push(drop)
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'recreated-'))
    cleanup.push(() => fs.rm(dir, { recursive: true, force: true }))
    const svc = await startService(dir, { DATABASE_URL: url, LOG_LEVEL: 'info', SIM_COINS: 'BTC', BACKFILL_DAYS: '0' })
    const proc: ChildProcess = svc.proc
    cleanup.push(async () => void (proc.exitCode === null && proc.kill('SIGKILL')))
    // the live feed has something pending: its ticker rows of the open minute at least
    await new Promise((r) => setTimeout(r, 3000))
    await recreateEmpty(url)
    await printed(svc, /market flush failed/, 30_000)
    proc.kill('SIGTERM')
    const code = await svc.exited
    const out = svc.output()
    expect(out).toMatch(/the final flush failed: the market data pending at shutdown was not written/)
    expect(out).toMatch(/stopped: what was pending could not be written/)
    // what Node prints when it dies of an unhandled rejection
    expect(out).not.toMatch(/triggerUncaughtException|UnhandledPromiseRejection|Node\.js v\d/)
    expect(code).toBe(1)
  })

  it('an exchange feed dying marks it down, and the analytics say which exchange is missing instead of failing', async () => {
    let now = TEST_NOW
    const t = await startTestService({ clock: () => now })
    cleanup.push(() => t.close())
    await seedMarket(t, { hours: 2, coins: ['BTC', 'ETH'] })
    const { apiKey } = await t.signup()
    // okx goes silent; the other venues keep streaming for 3 more minutes
    const live = new Ingest({ db: t.services.db, market: t.services.market })
    const withoutOkx: EventSink = { emit: (e: MarketEvent) => e.exchange !== 'okx' && live.emit(e) }
    const sim = new MarketSimulator({ seed: 7, coins: ['BTC', 'ETH'] })
    sim.live(withoutOkx, { manual: true, fromTs: now })
    const until = now + 3 * MINUTE_MS
    for (; now < until; now += 1000) sim.pump(now)
    live.advance(now)
    await live.flush()

    const ex = (await (await t.get('/v1/markets/exchanges', apiKey)).json()) as { data: { id: string; status: string }[] }
    expect(Object.fromEntries(ex.data.map((e) => [e.id, e.status]))).toEqual({ binance: 'operational', bybit: 'operational', okx: 'down', hyperliquid: 'operational', dydx: 'operational' })

    const ticker = (await (await t.get('/v1/markets/ticker?coin=BTC', apiKey)).json()) as { data: { exchange: string; stale: boolean }[] }
    expect(ticker.data.filter((r) => r.stale).map((r) => r.exchange)).toEqual(['okx'])

    const spread = await t.get('/v1/structure/spread?coin=BTC', apiKey)
    expect(spread.status).toBe(200)
    const s = ((await spread.json()) as { data: { prices: { exchange: string }[]; missing: { exchange: string; reason: string }[] }[] }).data[0]!
    expect(s.missing.map((m) => m.exchange)).toEqual(['okx'])
    expect(s.missing[0]!.reason).toMatch(/stale/)

    const imb = ((await (await t.get('/v1/flow/imbalance?coin=BTC', apiKey)).json()) as { data: { aggregate: { exchanges: string[] }; exchanges: { exchange: string; stale: boolean }[] }[] }).data[0]!
    expect(imb.aggregate.exchanges).toEqual(['binance', 'bybit', 'hyperliquid', 'dydx'])
    expect(imb.exchanges.find((e) => e.exchange === 'okx')!.stale).toBe(true)

    const cascade = await t.get('/v1/signals/liquidation-cascade?coin=BTC&trigger_price=1', apiKey)
    expect(cascade.status).toBe(200)
    const c = ((await cascade.json()) as { data: { exchanges: string[]; missing: { exchange: string }[] } }).data
    expect(c.exchanges).not.toContain('okx')
    expect(c.missing.map((m) => m.exchange)).toEqual(['okx'])
  })
})
