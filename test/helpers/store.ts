// In-memory embedded stores for tests, started from the migrated template test/global-setup.ts dumps once per run.
// The template is keyed by the migrations, so it holds them all: the schema engine is not run again per store.
import fs from 'node:fs/promises'
import { inject } from 'vitest'
import { openDatabase, type Database } from '../../src/store/database.js'

let template: Promise<Blob> | undefined

function pgliteTemplate(): Promise<Blob> {
  template ??= fs.readFile(inject('pgliteTemplate')).then((b) => new Blob([b]))
  return template
}

/** a fresh, migrated in-memory PGlite store */
export async function openTestStore(): Promise<Database> {
  return openDatabase({ kind: 'pglite', dir: null }, { migrate: false, loadDataDir: await pgliteTemplate() })
}
