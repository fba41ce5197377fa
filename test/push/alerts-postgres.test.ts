// Two API nodes' alert engines on one PostgreSQL store (real concurrent connections): every crossing is fired
// once and each delivery sent once, however the two engines interleave; and a delivery queued while the receiver
// is down survives the restart of the service (a new process on the same store sends it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXCHANGE_IDS } from '../../src/domain/exchanges.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { createApp, stopApp } from '../../src/server.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { until } from './sse-client.js'
import { webhookReceiver, type Receiver } from './receiver.js'

let receiver: Receiver | undefined
let base = ''
let down = false
const got: { path: string; id: string }[] = []
const drops: (() => Promise<void>)[] = []
const services: TestService[] = []
/** the other nodes' apps a test makes: their engines run on timers until stopped, before the store closes */
const otherApps: ReturnType<typeof createApp>[] = []

beforeAll(async () => {
  receiver = await webhookReceiver((d) => got.push({ path: d.path, id: d.eventId }), { failing: () => (down ? 500 : null) })
  base = receiver.base
})
afterAll(async () => {
  for (const app of otherApps) await stopApp(app)
  for (const t of services) await t.close().catch(() => {})
  for (const d of drops) await d()
  await receiver?.close()
})

const ENV = { ALERT_ALLOW_LOOPBACK: '1', ALERT_POLL_MS: '25', ALERT_RETRY_BASE_MS: '50' }
const setMark = (t: TestService, coin: string, mark: number) => {
  const ingest = new Ingest({ db: t.services.db, market: t.services.market })
  for (const exchange of EXCHANGE_IDS) ingest.emit({ type: 'ticker', exchange, coin, marketType: 'perp', ts: Date.now(), markPrice: mark, indexPrice: mark, lastPrice: mark, fundingRate: 0, fundingIntervalHours: 8, nextFundingTime: null })
}
const create = async (t: TestService, key: string, path: string, value: number) => {
  const res = await t.fetch('/v1/alerts', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ coin: 'BTC', condition: { type: 'price_above', value }, url: `${base}${path}` }) })
  return ((await res.json()) as { data: { alert_id: string } }).data.alert_id
}

describe('alerts on PostgreSQL', () => {
  it('two engines on one store: each crossing fired and delivered once', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('alerts2')
    drops.push(schema.drop)
    const t = await startTestService({ env: { DATABASE_URL: schema.url, ...ENV } })
    services.push(t)
    for (let i = 0; i < 3; i++) otherApps.push(createApp(t.services)) // three more nodes' engines over the same store
    const { apiKey } = await t.signup()
    const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => create(t, apiKey, `/pg${i}`, 50_000 + i)))
    for (const [i, mark] of [40_000, 60_000, 45_000, 61_000, 62_000, 40_000, 63_000].entries()) {
      setMark(t, 'BTC', mark)
      // every rule evaluated at this mark before the next one
      await until(async () => {
        const rows = await t.services.db.sql.query<{ last_true: boolean | null }>('SELECT last_true FROM alert_rule WHERE id = ANY($1::uuid[])', [ids])
        return rows.every((r) => r.last_true === mark > 50_000)
      }, 10_000, `evaluation ${i}`)
    }
    // crossings up: 60k, 61k (after 45k), 63k (after 40k): 3 per rule
    await until(async () => {
      const [r] = await t.services.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM alert_delivery WHERE status = 'delivered' AND rule_id = ANY($1::uuid[])", [ids])
      return Number(r!.n) === 30
    }, 10_000, '30 deliveries')
    const [all] = await t.services.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_delivery WHERE rule_id = ANY($1::uuid[])', [ids])
    expect(Number(all!.n)).toBe(30)
    const mine = got.filter((g) => g.path.startsWith('/pg'))
    expect(mine).toHaveLength(30)
    expect(new Set(mine.map((g) => g.id)).size).toBe(30)
  })

  it('the 100-rule limit holds under parallel creates (issue 31: 25 at 90 left 101)', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('alertlimit')
    drops.push(schema.drop)
    const t = await startTestService({ env: { DATABASE_URL: schema.url, ...ENV } })
    services.push(t)
    const { apiKey, accountId } = await t.signup()
    for (let i = 0; i < 90; i++) await create(t, apiKey, `/limit${i}`, 1e12)
    const post = () => t.fetch('/v1/alerts', { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ coin: 'BTC', condition: { type: 'price_above', value: 1e12 }, url: `${base}/limit` }) })
    const statuses = (await Promise.all(Array.from({ length: 25 }, post))).map((r) => r.status).sort()
    expect(statuses).toEqual([...Array(10).fill(201), ...Array(15).fill(409)])
    const [n] = await t.services.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_rule WHERE account_id = $1', [accountId])
    expect(Number(n!.n)).toBe(100)
  })

  it('a delivery queued while the receiver is down survives a restart', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('alertsrestart')
    drops.push(schema.drop)
    down = true
    // the first process retries only after 3 s: it is stopped between attempts (one stopped while sending would
    // hold the delivery for its 30 s lease, which is how a crashed sender is covered)
    const first = await startTestService({ env: { DATABASE_URL: schema.url, ...ENV, ALERT_RETRY_BASE_MS: '3000' } })
    // closed below; afterAll closes it too when the test fails before that (its engine would run on otherwise)
    services.push(first)
    const { apiKey } = await first.signup()
    setMark(first, 'BTC', 90_000)
    const id = await create(first, apiKey, '/restart', 80_000)
    await until(async () => {
      const [d] = await first.services.db.sql.query<{ attempts: number; claimed_until: string | null }>('SELECT attempts, claimed_until FROM alert_delivery WHERE rule_id = $1', [id])
      return Number(d?.attempts ?? 0) >= 1 && d!.claimed_until === null
    }, 10_000, 'a failed attempt')
    await first.close()
    down = false
    const second = await startTestService({ env: { DATABASE_URL: schema.url, ...ENV } })
    services.push(second)
    await until(() => got.some((g) => g.path === '/restart'), 20_000, 'the delivery after the restart')
    const [d] = await second.services.db.sql.query<{ id: string; status: string }>('SELECT id, status FROM alert_delivery WHERE rule_id = $1', [id])
    expect(got.filter((g) => g.path === '/restart').map((g) => g.id)).toEqual([d!.id])
  })
})
