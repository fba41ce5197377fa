// The machine's PostgreSQL (127.0.0.1:5432, database test) for the tests that need a real server.
// Each caller gets its own schema, dropped afterwards. When the server does not answer, those tests skip
// and say why (CI sets REQUIRE_POSTGRES=1 so a missing server fails instead of skipping).
import pg from 'pg'

export const PG_TEST_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

let probe: Promise<boolean> | undefined
export function postgresAvailable(): Promise<boolean> {
  probe ??= (async () => {
    const client = new pg.Client({ connectionString: PG_TEST_URL, connectionTimeoutMillis: 2000 })
    try {
      await client.connect()
      await client.query('SELECT 1')
      return true
    } catch {
      return false
    } finally {
      await client.end().catch(() => {})
    }
  })()
  return probe
}

const POSTGRES_SKIP_MESSAGE = `PostgreSQL is not reachable at ${PG_TEST_URL}: skipping the PostgreSQL tests (set PG_TEST_URL, or run them where the server is up)`

/** a fresh schema on the test server; returns its URL and a drop() */
export async function freshSchema(tag: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `t_${tag}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new pg.Client({ connectionString: PG_TEST_URL })
  await admin.connect()
  await admin.query(`CREATE SCHEMA "${schema}"`)
  await admin.end()
  const u = new URL(PG_TEST_URL)
  u.searchParams.set('schema', schema)
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_TEST_URL })
      await c.connect()
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await c.end()
    },
  }
}

/** in CI a missing server is a failure, not a skip */
export async function requirePostgresInCi(): Promise<boolean> {
  const up = await postgresAvailable()
  if (!up && process.env.REQUIRE_POSTGRES === '1') throw new Error(`REQUIRE_POSTGRES=1 but ${POSTGRES_SKIP_MESSAGE}`)
  if (!up) console.warn(POSTGRES_SKIP_MESSAGE)
  return up
}
