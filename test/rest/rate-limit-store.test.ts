// A Redis outage (issue 31, item 7): it used to add about a second to every request (each counter call waited for
// its 500 ms bound, two per request). Redis here is the machine's, behind a TCP proxy the test owns: cut() closes
// the connection and refuses new ones (Redis down), freeze() keeps it open and passes nothing (Redis hangs). The
// outage is noticed once; requests then take what they take with Redis up, the limits hold per node, and /readyz
// and the metrics say Redis is down; when it answers again the shared counters are used again.
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMetrics } from '../../src/http/metrics.js'
import { registerNodeMetrics } from '../../src/http/node-metrics.js'
import { COMMAND_TIMEOUT_MS, PROBE_EVERY_MS, redisLimitStores } from '../../src/rest/rate-limit-store.js'
import { REDIS_TEST_URL, scaleOutEngines, until } from '../helpers/scale-out.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'

const RPS = 5
/** what a request may take beyond the same request with Redis up, once the outage is known: scheduling noise only */
const NOISE_MS = 25

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

describe('rate limits when Redis goes away (REDIS_URL through a proxy)', () => {
  let skip: string | null = null
  let proxy: TcpProxy | undefined
  let t: TestService
  const prefix = `rl${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`

  beforeAll(async () => {
    skip = await scaleOutEngines({ postgres: false, nats: false })
    if (skip) return
    proxy = await startTcpProxy(Number(new URL(REDIS_TEST_URL).port || 6379), new URL(REDIS_TEST_URL).hostname)
    t = await startTestService({
      env: { RATE_LIMIT_RPS: String(RPS), AUTH_FAILURE_LIMIT: '30', BUS_PREFIX: prefix },
      prepare: (s) => void (s.limits = redisLimitStores(`redis://127.0.0.1:${proxy!.port}`, pino({ level: 'silent' }), prefix)),
    })
    await until('Redis to be used', async () => (t.services.limits!.connected() ? true : undefined), 5000, 20)
  })
  afterAll(async () => {
    await t?.close()
    await proxy?.close()
  })

  /** n requests one after the other (each key's own limit answers 429 past RPS: every answer goes through both counters) */
  const timed = async (key: string, n: number) => {
    const out: { ms: number; status: number }[] = []
    for (let i = 0; i < n; i++) {
      const at = performance.now()
      const res = await t.get('/v1/markets/exchanges', key)
      await res.arrayBuffer()
      out.push({ ms: performance.now() - at, status: res.status })
    }
    return out
  }
  const readyz = async () => {
    const res = await t.fetch('/readyz')
    return { status: res.status, body: (await res.json()) as { status: string; limit_store: { connected: boolean; down_since: number | null; counters: string }; degraded: string[] } }
  }
  const metric = async (name: string) => {
    const m = createMetrics('api')
    registerNodeMetrics(m, t.services, () => null)
    const line = (await m.registry.metrics()).split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    return Number(line?.split(' ').at(-1))
  }
  const burst = async (key: string) => (await Promise.all(Array.from({ length: 4 * RPS }, () => t.get('/v1/markets/exchanges', key)))).map((r) => r.status)

  it('Redis down (connection refused): no request waits for it, the limit holds per node, /readyz and the metrics say so', async (ctx) => {
    if (skip) return ctx.skip()
    const { apiKey } = await t.signup()
    const up = await timed(apiKey, 20)
    expect(up.some((r) => r.status === 429), 'the shared limit counts with Redis up').toBe(true)
    const base = median(up.map((r) => r.ms))

    proxy!.cut()
    const down = await timed(apiKey, 20)
    // noticed once: the requests after the cut take what they took with Redis up (before: about 1 s more each), and
    // all of them together at most one command timeout more
    const sum = (xs: { ms: number }[]) => xs.reduce((s, r) => s + r.ms, 0)
    expect(median(down.map((r) => r.ms)), JSON.stringify(down)).toBeLessThanOrEqual(base + NOISE_MS)
    expect(sum(down), JSON.stringify(down)).toBeLessThanOrEqual(sum(up) + COMMAND_TIMEOUT_MS + down.length * NOISE_MS)

    // served without Redis, on this node's own counters: a burst on a fresh key gets exactly RPS answers in its second
    const fresh = await t.signup()
    const statuses = await burst(fresh.apiKey)
    expect(statuses.filter((s) => s === 200)).toHaveLength(RPS)
    expect(statuses.filter((s) => s === 429)).toHaveLength(3 * RPS)

    const r = await readyz()
    expect(r.status, 'serving on its own counters is the documented degraded mode: still ready').toBe(200)
    expect(r.body.status).toBe('ready')
    expect(r.body.limit_store).toMatchObject({ connected: false, counters: 'this node' })
    expect(r.body.limit_store.down_since).toEqual(expect.any(Number))
    expect(r.body.degraded).toEqual(['limit_store'])
    expect(await metric('limit_store_connected')).toBe(0)
    expect(await metric('limit_store_outages_total')).toBe(1)
    expect(await metric('limit_store_local_calls_total')).toBeGreaterThan(0)

    proxy!.restore()
    await until('Redis to be used again', async () => (t.services.limits!.connected() ? true : undefined), 2 * PROBE_EVERY_MS + 3000, 20)
    const back = await readyz()
    expect(back.body.limit_store).toMatchObject({ connected: true, down_since: null, counters: 'shared' })
    expect(back.body.degraded).toEqual([])
    expect(await metric('limit_store_connected')).toBe(1)
  })

  it('Redis hangs (connection open, nothing answered): one command timeout for the requests in flight, nothing after', async (ctx) => {
    if (skip) return ctx.skip()
    const { apiKey } = await t.signup()
    const base = median((await timed(apiKey, 10)).map((r) => r.ms))
    const outages = await metric('limit_store_outages_total')

    proxy!.freeze()
    const hung = await timed(apiKey, 20)
    // the first request waits at most one command timeout (its first counter call), the rest nothing
    expect(hung[0]!.ms, JSON.stringify(hung)).toBeLessThanOrEqual(base + COMMAND_TIMEOUT_MS + 100)
    expect(median(hung.slice(1).map((r) => r.ms)), JSON.stringify(hung)).toBeLessThanOrEqual(base + NOISE_MS)
    expect(Math.max(...hung.slice(1).map((r) => r.ms)), JSON.stringify(hung)).toBeLessThan(COMMAND_TIMEOUT_MS)
    expect((await readyz()).body.limit_store.connected).toBe(false)
    expect(await metric('limit_store_outages_total')).toBe(outages + 1)

    // the frozen connection is given up on and made again once Redis answers
    proxy!.restore()
    await until('Redis to be used again', async () => (t.services.limits!.connected() ? true : undefined), 3 * PROBE_EVERY_MS + 5000, 20)
    const fresh = await t.signup()
    const statuses = await burst(fresh.apiKey)
    expect(statuses.filter((s) => s === 200)).toHaveLength(RPS)
  })
})
