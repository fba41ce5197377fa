// The key paging cursors are sealed with (src/store/cursor-secret.ts): made once and kept in the store, so a cursor
// one node issued pages on another node of the same store and after a restart; CURSOR_SECRET instead, when set.
import { afterAll, describe, expect, it } from 'vitest'
import { cursorSecret, storedCursorSecret } from '../../src/store/cursor-secret.js'
import { TEST_NOW } from '../helpers/market.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { openTestStore, testDatabase } from '../helpers/store.js'

const PAGE = '/v1/funding/history?coin=BTC&interval=1m&lookback=1h&limit=1'
const cleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
})

async function service(env: Record<string, string> = {}): Promise<TestService> {
  const t = await startTestService({ clock: () => TEST_NOW, env })
  cleanups.push(() => t.close())
  return t
}

/** the first page's cursor from one node, and the status another node answers it with */
async function pagesOn(from: TestService, to: TestService, keys: { from: string; to: string }): Promise<number> {
  const first = (await (await from.get(PAGE, keys.from)).json()) as { meta: { next: string } }
  expect(typeof first.meta.next).toBe('string')
  const res = await to.get(`${PAGE}&cursor=${first.meta.next}`, keys.to)
  return res.status
}

describe('the cursor secret', () => {
  it('is made once per store: 32 random bytes, the same to every caller, also to callers racing to make it', async () => {
    const db = await openTestStore()
    cleanups.push(() => db.close())
    const all = await Promise.all(Array.from({ length: 5 }, () => storedCursorSecret(db.sql)))
    expect(all[0]!.length).toBe(32)
    for (const s of all) expect(s.equals(all[0]!)).toBe(true)
    expect((await storedCursorSecret(db.sql)).equals(all[0]!)).toBe(true)
    expect(await db.sql.query('SELECT name FROM service_secret')).toEqual([{ name: 'cursor' }])
  })

  it('CURSOR_SECRET, when set, is the key and nothing is stored', async () => {
    const db = await openTestStore()
    cleanups.push(() => db.close())
    const key = await cursorSecret('x'.repeat(32), db.sql)
    expect(key.equals(Buffer.from('x'.repeat(32)))).toBe(true)
    expect(await db.sql.query('SELECT name FROM service_secret')).toEqual([])
  })

  it('two services with the same CURSOR_SECRET page each other\'s cursors; with another secret, or none, they refuse them', async () => {
    const secret = 'a cursor secret shared by two nodes'
    const [a, b, c] = [await service({ CURSOR_SECRET: secret }), await service({ CURSOR_SECRET: secret }), await service()]
    const [ka, kb, kc] = [(await a.signup()).apiKey, (await b.signup()).apiKey, (await c.signup()).apiKey]
    expect(await pagesOn(a, b, { from: ka, to: kb })).toBe(200)
    expect(await pagesOn(a, c, { from: ka, to: kc })).toBe(400)
    expect(await pagesOn(c, a, { from: kc, to: ka })).toBe(400)
  })

  it('a store keeps its secret across a restart: the cursors issued before page on after', async () => {
    const store = await testDatabase()
    cleanups.push(store.drop)
    const env = { DATABASE_URL: store.url }
    const before = await startTestService({ clock: () => TEST_NOW, env })
    const key = (await before.signup()).apiKey
    const first = (await (await before.get(PAGE, key)).json()) as { meta: { next: string } }
    await before.close()
    const after = await service(env)
    expect((await after.get(`${PAGE}&cursor=${first.meta.next}`, key)).status).toBe(200)
  })

  it('two API nodes on one PostgreSQL share the stored secret: a cursor of one pages on the other', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('cursor_secret')
    cleanups.push(() => schema.drop())
    const a = await service({ DATABASE_URL: schema.url })
    const b = await service({ DATABASE_URL: schema.url })
    const key = (await a.signup()).apiKey
    expect(await pagesOn(a, b, { from: key, to: key })).toBe(200)
    expect(await pagesOn(b, a, { from: key, to: key })).toBe(200)
  })
})
