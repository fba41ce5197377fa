// The liquidation streams' uptime lives in the store: on PostgreSQL another API node, and the writer after a restart,
// answer the same coverage as the node whose ingest recorded it. Skips where no server answers; REQUIRE_POSTGRES=1
// (CI) makes that a failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Ingest } from '../../src/ingest/ingest.js'
import { TEST_NOW } from '../helpers/market.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { HOUR, MINUTE, type Json } from './markets/helpers.js'

const T = TEST_NOW
let up = false
let url = ''
let drop: (() => Promise<void>) | undefined
const open: TestService[] = []

async function node(): Promise<{ t: TestService; key: string }> {
  const t = await startTestService({ clock: () => T, env: { DATABASE_URL: url } })
  open.push(t)
  return { t, key: (await t.signup()).apiKey }
}

const coverageOf = async (n: { t: TestService; key: string }) => {
  const body = (await (await n.t.get('/v1/liquidations/history?coin=BTC&interval=15m&lookback=4h', n.key)).json()) as { data: Json }
  return { coverage: body.data.coverage, liquidation: body.data.liquidation_coverage }
}

beforeAll(async () => {
  up = await requirePostgresInCi()
  if (!up) return
  const schema = await freshSchema('liquidation_coverage')
  ;({ url, drop } = schema)
}, 60_000)
afterAll(async () => {
  for (const t of open) await t.close().catch(() => {})
  await drop?.()
})

describe('liquidation coverage on PostgreSQL', () => {
  it('another node and a restarted writer answer the coverage the writer recorded', async (ctx) => {
    if (!up) return ctx.skip()
    const writer = await node()
    const ingest = new Ingest({ db: writer.t.services.db, market: writer.t.services.market })
    // OKX's stream up from 5 h ago, lost for 30 minutes an hour ago, then back
    ingest.feed({ exchange: 'okx', stream: 'liquidations', coins: ['BTC'], ts: T - 5 * HOUR, up: true })
    ingest.advance(T - HOUR)
    await ingest.flush()
    ingest.feed({ exchange: 'okx', stream: 'liquidations', coins: ['BTC'], ts: T - HOUR, up: false })
    ingest.feed({ exchange: 'okx', stream: 'liquidations', coins: ['BTC'], ts: T - 30 * MINUTE, up: true })
    ingest.advance(T)
    await ingest.flush()
    const mine = await coverageOf(writer)
    const okx = (mine.liquidation.exchanges as Json[]).find((v) => v.exchange === 'okx')
    expect(okx).toMatchObject({ stream: 'partial', outages: [{ from: T - HOUR, to: T - 30 * MINUTE }] })
    // an API node of its own: the same answer, from the store alone
    const api = await node()
    expect(await coverageOf(api)).toEqual(mine)
    // the writer restarts: the same answer
    await writer.t.close()
    open.splice(open.indexOf(writer.t), 1)
    expect(await coverageOf(await node())).toEqual(mine)
  }, 120_000)
})
