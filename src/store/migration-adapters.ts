// Driver-adapter factories for the schema engine, with the fixes each adapter needs (see docs/operations.md).
import type { PGlite } from '@electric-sql/pglite'
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils'

/** PGlite: the shadow database is a fresh in-memory PGlite; executeScript is awaited so a failing script rejects. */
export async function pgliteMigrationFactory(db: PGlite): Promise<SqlMigrationAwareDriverAdapterFactory> {
  const { PrismaPGlite } = await import('pglite-prisma-adapter')
  const { PGlite: PGliteClass } = await import('@electric-sql/pglite')
  const main = new PrismaPGlite(db)
  const fix = (adapter: SqlDriverAdapter, client: PGlite) => {
    adapter.executeScript = async (script: string) => {
      await client.exec(script)
    }
    return adapter
  }
  const shadows: PGlite[] = []
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: async () => fix(await main.connect(), db),
    async connectToShadowDb() {
      const shadowDb = new PGliteClass()
      shadows.push(shadowDb)
      const adapter = fix(await new PrismaPGlite(shadowDb).connect(), shadowDb)
      const dispose = adapter.dispose.bind(adapter)
      adapter.dispose = async () => {
        await dispose()
        await shadowDb.close()
      }
      return adapter
    },
  }
}

interface PgConfig {
  host: string
  port: number
  database: string
  user: string
  password: string
  options?: string
}

export function pgConfigFromUrl(url: string): { config: PgConfig; schema: string | undefined } {
  const u = new URL(url)
  const config: PgConfig = {
    host: u.hostname,
    port: Number(u.port || 5432),
    database: decodeURIComponent(u.pathname.slice(1)) || 'postgres',
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  }
  const schema = u.searchParams.get('schema') ?? undefined
  // the engine writes unqualified names: point search_path at ?schema= like the native engine does
  if (schema) config.options = `-c search_path="${schema}"`
  return { config, schema }
}

/**
 * @prisma/adapter-pg 7.10 as a migration adapter needs four fixes:
 * 1. PostgreSQL's internal "char" type (oid 18), which the engine's describer selects, is reported as text;
 * 2. the shadow database gets discrete connection fields (with a connection string pg ignores `database`);
 * 3. our own shadow create/drop, closing pools before DROP DATABASE;
 * 4. executeScript sends the whole script as one simple-protocol query (the adapter splits on every ";").
 */
export async function pgMigrationFactory(url: string, shadowUrl = process.env.SHADOW_DATABASE_URL): Promise<SqlMigrationAwareDriverAdapterFactory> {
  const { PrismaPg } = await import('@prisma/adapter-pg')
  type Patched = SqlDriverAdapter & { client: { query(sql: string): Promise<unknown> }; onError(e: unknown): never }
  const patch = (adapter: SqlDriverAdapter) => {
    const a = adapter as Patched
    const proto = Object.getPrototypeOf(Object.getPrototypeOf(a)) as { performIO: ((q: unknown) => Promise<{ fields?: { dataTypeID: number }[] }>) & { charFix?: boolean } }
    if (!proto.performIO.charFix) {
      const performIO = proto.performIO
      const fixed = async function (this: unknown, query: unknown) {
        const result = await performIO.call(this, query)
        for (const f of result?.fields ?? []) if (f.dataTypeID === 18) f.dataTypeID = 25
        return result
      } as typeof proto.performIO
      fixed.charFix = true
      proto.performIO = fixed
    }
    a.executeScript = async (script: string) => {
      try {
        await a.client.query(script)
      } catch (e) {
        a.onError(e)
      }
    }
    return a
  }
  const { config, schema } = pgConfigFromUrl(url)
  const options = schema ? { schema } : undefined
  const main = new PrismaPg(config, options)
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: async () => patch(await main.connect()),
    async connectToShadowDb() {
      if (shadowUrl) {
        const s = pgConfigFromUrl(shadowUrl)
        const shadow = patch(await new PrismaPg(s.config, s.schema ? { schema: s.schema } : undefined).connect())
        const name = s.schema ?? 'public'
        await shadow.executeScript(`DROP SCHEMA IF EXISTS "${name}" CASCADE; CREATE SCHEMA "${name}"`)
        return shadow
      }
      const admin = await main.connect()
      const name = `prisma_migrate_shadow_db_${globalThis.crypto.randomUUID()}`
      await admin.executeScript(`CREATE DATABASE "${name}"`)
      const shadow = patch(await new PrismaPg({ ...config, database: name }, options).connect())
      if (schema) await shadow.executeScript(`CREATE SCHEMA IF NOT EXISTS "${schema}"`)
      const dispose = shadow.dispose.bind(shadow)
      shadow.dispose = async () => {
        await dispose()
        await admin.executeScript(`DROP DATABASE IF EXISTS "${name}"`)
        await admin.dispose()
      }
      return shadow
    },
  }
}
