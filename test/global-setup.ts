// Once per run, before any test file: an embedded store with every migration applied, dumped as a PGlite data
// directory. Tests start their in-memory stores from it (test/helpers/store.ts) instead of running initdb and
// the migrations again for each store (~2 s each). Kept under node_modules/.cache, keyed by the migrations and
// the PGlite version, so a rerun with the same migrations reuses it.
import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import type { TestProject } from 'vitest/node'
import { pgliteMigrationFactory } from '../src/store/migration-adapters.js'
import { applyMigrations, MIGRATIONS_DIR } from '../src/store/migrations.js'
import { ROOT } from '../src/paths.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** a PGlite data directory dump (tar) of an empty, fully migrated store */
    pgliteTemplate: string
  }
}

async function templateKey(): Promise<string> {
  const hash = createHash('sha256')
  hash.update(JSON.parse(await fs.readFile(path.join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')).version)
  for (const entry of (await fs.readdir(MIGRATIONS_DIR, { recursive: true })).sort()) {
    const file = path.join(MIGRATIONS_DIR, entry)
    if ((await fs.stat(file)).isFile()) hash.update(`\n${entry}\n`).update(await fs.readFile(file))
  }
  return hash.digest('hex').slice(0, 16)
}

export default async function setup(project: TestProject) {
  const dir = path.join(ROOT, 'node_modules', '.cache', 'perp-analytics-test')
  const file = path.join(dir, `pglite-template-${await templateKey()}.tar`)
  const exists = await fs.stat(file).then(() => true, () => false)
  if (!exists) {
    const pg = new PGlite()
    try {
      await applyMigrations(await pgliteMigrationFactory(pg))
      const dump = await pg.dumpDataDir('none')
      await fs.mkdir(dir, { recursive: true })
      const tmp = `${file}.${process.pid}.tmp`
      await fs.writeFile(tmp, Buffer.from(await dump.arrayBuffer()))
      await fs.rename(tmp, file)
    } finally {
      await pg.close()
    }
  }
  project.provide('pgliteTemplate', file)
}
