// The WASM schema engine's JS glue is a plain node_modules ESM file, loaded once per process; the WebAssembly
// instance behind it must be too. A second instantiation (our module evaluated again: vi.resetModules() in the
// test suite's shared workers, or two copies of the service code in one process) used to swap the instance under
// engines and closures created on the first, which then called into the wrong heap ("Option::unwrap_throw() on a
// None value" and a migration that never settles).
import { afterAll, expect, it, vi } from 'vitest'
import { testDatabase } from '../helpers/store.js'

const drops: (() => Promise<void>)[] = []
afterAll(async () => Promise.all(drops.map((d) => d())))
/** an empty database on the test run's cluster */
const empty = async () => {
  const db = await testDatabase({ empty: true })
  drops.push(db.drop)
  return db.url
}

type Modules = { engine: typeof import('../../src/store/schema-engine.js'); adapters: typeof import('../../src/store/migration-adapters.js'); migrations: typeof import('../../src/store/migrations.js') }
const load = async (): Promise<Modules> => ({
  engine: await import('../../src/store/schema-engine.js'),
  adapters: await import('../../src/store/migration-adapters.js'),
  migrations: await import('../../src/store/migrations.js'),
})

it('an engine opened before the module is evaluated again keeps working, and so does one opened after', async () => {
  const first = await load()
  const engineA = await first.engine.openSchemaEngine(await first.adapters.pgMigrationFactory(await empty()))
  vi.resetModules()
  const second = await load()
  expect(second.engine).not.toBe(first.engine) // really a second evaluation
  const names = (await second.migrations.listMigrations()).migrationDirectories.map((m) => m.path)
  expect(await second.migrations.applyMigrations(await second.adapters.pgMigrationFactory(await empty()))).toEqual(names)
  const { appliedMigrationNames } = await engineA.applyMigrations({ migrationsList: await first.migrations.listMigrations(), filters: first.engine.NO_FILTERS })
  expect(appliedMigrationNames).toEqual(names)
  await engineA.close()
})
