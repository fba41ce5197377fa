// Trial credits cannot be farmed (issue 15, item 4): one trial per normalised email (case, +tags, and Gmail's
// dots), a per-address signup limit that a forged X-Forwarded-For does not dodge (the address is the socket's
// unless TRUST_PROXY names the proxy), and existing accounts normalised by the migration.
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { normalizeEmail } from '../../src/accounts/email.js'
import { pgMigrationFactory } from '../../src/store/migration-adapters.js'
import { applyMigrations, MIGRATIONS_DIR } from '../../src/store/migrations.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { REDIS_TEST_URL } from '../helpers/scale-out.js'
import { testDatabase } from '../helpers/store.js'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'

const signupRes = (t: TestService, email: string, headers: Record<string, string> = {}) =>
  t.fetch(`/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ email }) })

describe('normalizeEmail', () => {
  it.each([
    ['Alice@Example.COM', 'alice@example.com'],
    ['alice+trial7@example.com', 'alice@example.com'],
    ['alice+a+b@example.com', 'alice@example.com'],
    // dots are kept outside Gmail: other providers deliver a.b@ and ab@ to different people
    ['a.lice@example.com', 'a.lice@example.com'],
    ['A.Lice+x@Gmail.com', 'alice@gmail.com'],
    ['a.l.i.c.e@googlemail.com', 'alice@gmail.com'],
    // a local part that is only a tag has nothing to strip to
    ['+x@example.com', '+x@example.com'],
  ])('%s → %s', (email, expected) => {
    expect(normalizeEmail(email)).toBe(expected)
  })
})

describe('one trial per normalised email', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t?.close())

  it.each([
    ['case', 'farmer@example.com', 'FARMER@Example.com'],
    ['a +tag', 'bob@example.com', 'bob+2@example.com'],
    ['Gmail dots and googlemail', 'jane.doe@gmail.com', 'janedoe+x@googlemail.com'],
  ])('a second signup differing only by %s → 409 conflict and no second trial', async (_what, first, second) => {
    const before = Number((await t.services.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM account'))[0]!.n)
    expect((await signupRes(t, first)).status).toBe(201)
    const body = await expectProblem(await signupRes(t, second), 409, 'conflict')
    expect(body.parameter).toBe('email')
    const after = Number((await t.services.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM account'))[0]!.n)
    expect(after).toBe(before + 1)
  })

  it('addresses that are different mailboxes still get their own accounts', async () => {
    expect((await signupRes(t, 'j.smith@example.org')).status).toBe(201)
    expect((await signupRes(t, 'jsmith@example.org')).status).toBe(201)
  })
})

describe('per-address signup limit (SIGNUP_LIMIT=3)', () => {
  it('a rotating X-Forwarded-For does not dodge it: the socket address is counted (TRUST_PROXY unset)', async () => {
    const t = await startTestService({ env: { SIGNUP_LIMIT: '3' } })
    try {
      const statuses: number[] = []
      for (let i = 0; i < 5; i++) statuses.push((await signupRes(t, `xff${i}@example.net`, { 'x-forwarded-for': `198.51.100.${i + 1}` })).status)
      expect(statuses).toEqual([201, 201, 201, 429, 429])
      const limited = await signupRes(t, 'xff9@example.net', { 'x-forwarded-for': '203.0.113.9' })
      const body = await expectProblem(limited, 429, 'rate_limited')
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(limited.headers.get('ratelimit-policy')).toBe('3;w=3600')
      expect(body.detail).toMatch(/3 signups per hour/)
      expect(Number((await t.services.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM account WHERE email LIKE 'xff%'`))[0]!.n)).toBe(3)
    } finally {
      await t.close()
    }
  })

  it('parallel signups cannot slip past the count; refused signups (a taken email) do not use it up', async () => {
    const t = await startTestService({ env: { SIGNUP_LIMIT: '3' } })
    try {
      expect((await signupRes(t, 'taken@example.net')).status).toBe(201)
      expect((await signupRes(t, 'TAKEN@example.net')).status).toBe(409)
      const all = await Promise.all(Array.from({ length: 10 }, (_, i) => signupRes(t, `par${i}@example.net`)))
      const statuses = all.map((r) => r.status).sort()
      expect(statuses.filter((s) => s === 201)).toHaveLength(2)
      expect(statuses.filter((s) => s === 429)).toHaveLength(8)
    } finally {
      await t.close()
    }
  })

  it('with TRUST_PROXY naming the proxy (here loopback), the forwarded client address is what is counted', async () => {
    const t = await startTestService({ env: { SIGNUP_LIMIT: '1', TRUST_PROXY: 'loopback' } })
    try {
      expect((await signupRes(t, 'p1@example.net', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(201)
      expect((await signupRes(t, 'p2@example.net', { 'x-forwarded-for': '198.51.100.2' })).status).toBe(201)
      expect((await signupRes(t, 'p3@example.net', { 'x-forwarded-for': '198.51.100.2' })).status).toBe(429)
    } finally {
      await t.close()
    }
  })
})

// issue 31: the count was each process's own, so a restart or a second node started it again
describe('the signup limit holds per address across restarts and nodes', () => {
  const cleanup: (() => Promise<void>)[] = []
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => {})
  })
  const service = async (env: Record<string, string>) => {
    const t = await startTestService({ env: { SIGNUP_LIMIT: '2', ...env } })
    cleanup.push(() => t.close())
    return t
  }

  it('on the embedded store: a restarted service refuses the address that used its signups', async () => {
    const store = await testDatabase()
    cleanup.push(store.drop)
    const env = { DATABASE_URL: store.url }
    const first = await service(env)
    expect((await signupRes(first, 'r1@example.net')).status).toBe(201)
    expect((await signupRes(first, 'r2@example.net')).status).toBe(201)
    await first.close()
    const second = await service(env)
    await expectProblem(await signupRes(second, 'r3@example.net'), 429, 'rate_limited')
  })

  it('on PostgreSQL without Redis: two nodes count one limit, and a third node started later too', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('signuplimit')
    cleanup.push(schema.drop)
    const [a, b] = [await service({ DATABASE_URL: schema.url }), await service({ DATABASE_URL: schema.url })]
    expect((await signupRes(a, 'n1@example.net')).status).toBe(201)
    expect((await signupRes(b, 'n2@example.net')).status).toBe(201)
    await expectProblem(await signupRes(a, 'n3@example.net'), 429, 'rate_limited')
    await expectProblem(await signupRes(b, 'n4@example.net'), 429, 'rate_limited')
    await expectProblem(await signupRes(await service({ DATABASE_URL: schema.url }), 'n5@example.net'), 429, 'rate_limited')
    expect(Number((await a.services.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM account WHERE email LIKE 'n_@example.net'`))[0]!.n)).toBe(2)
  })

  it('with Redis: the nodes share the count there', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('signupredis')
    cleanup.push(schema.drop)
    // a prefix of this run's own: nothing another run counted is read
    const env = { DATABASE_URL: schema.url, REDIS_URL: REDIS_TEST_URL, BUS_PREFIX: `signup${Date.now().toString(36)}` }
    const [a, b] = [await service(env), await service(env)]
    for (let i = 0; i < 40 && !a.services.limits!.connected(); i++) await new Promise((r) => setTimeout(r, 50))
    if (!a.services.limits!.connected()) {
      if (process.env.REQUIRE_REDIS === '1') throw new Error(`REQUIRE_REDIS=1 but Redis does not answer at ${REDIS_TEST_URL}`)
      return ctx.skip()
    }
    expect((await signupRes(a, 'd1@example.net')).status).toBe(201)
    expect((await signupRes(b, 'd2@example.net')).status).toBe(201)
    await expectProblem(await signupRes(b, 'd3@example.net'), 429, 'rate_limited')
    // counted in Redis: the store's own counter was not needed
    expect(await a.services.db.sql.query(`SELECT key FROM limit_counter`)).toEqual([])
  })
})

describe('migration: existing accounts get their normalised email', () => {
  const dirs: string[] = []
  afterAll(async () => Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true }))))

  it('the oldest account of each normalised address keeps it; later ones keep working with none', async () => {
    const all = (await fs.readdir(MIGRATIONS_DIR)).filter((d) => /^\d{14}_/.test(d)).sort()
    const target = all.findIndex((d) => d.endsWith('_signup_email_normalized'))
    expect(target).toBeGreaterThan(0)
    // the history as it was before this migration
    const before = await fs.mkdtemp(path.join(os.tmpdir(), 'mig-before-'))
    dirs.push(before)
    await fs.copyFile(path.join(MIGRATIONS_DIR, 'migration_lock.toml'), path.join(before, 'migration_lock.toml'))
    for (const d of all.slice(0, target)) await fs.cp(path.join(MIGRATIONS_DIR, d), path.join(before, d), { recursive: true })

    const store = await testDatabase({ empty: true })
    const db = new pg.Client({ connectionString: store.url })
    await db.connect()
    try {
      await applyMigrations(await pgMigrationFactory(store.url), { migrationsDir: before })
      const rows: [string, string][] = [
        ['00000000-0000-4000-8000-000000000001', 'a.b+x@gmail.com'],
        ['00000000-0000-4000-8000-000000000002', 'ab@googlemail.com'],
        ['00000000-0000-4000-8000-000000000003', 'c+1@example.com'],
        ['00000000-0000-4000-8000-000000000004', 'c@example.com'],
        ['00000000-0000-4000-8000-000000000005', 'x.y@example.com'],
      ]
      for (const [i, [id, email]] of rows.entries())
        await db.query(`INSERT INTO account (id, email, credits, created_at) VALUES ($1, $2, 1000, $3)`, [id, email, new Date(Date.UTC(2026, 0, 1 + i))])
      await applyMigrations(await pgMigrationFactory(store.url))
      const { rows: out } = await db.query<{ email: string; email_normalized: string | null }>('SELECT email, email_normalized FROM account ORDER BY id')
      expect(out).toEqual([
        { email: 'a.b+x@gmail.com', email_normalized: 'ab@gmail.com' },
        { email: 'ab@googlemail.com', email_normalized: null },
        { email: 'c+1@example.com', email_normalized: 'c@example.com' },
        { email: 'c@example.com', email_normalized: null },
        { email: 'x.y@example.com', email_normalized: 'x.y@example.com' },
      ])
      // the SQL rule and the code's rule agree on every address that kept its value
      for (const r of out) if (r.email_normalized) expect(normalizeEmail(r.email)).toBe(r.email_normalized)
    } finally {
      await db.end()
      await store.drop()
    }
  })
})
