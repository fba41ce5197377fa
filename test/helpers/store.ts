// In-memory embedded stores for tests, started from the migrated template test/global-setup.ts dumps once per run
// (openDatabase still applies the migrations, which finds nothing to do).
import fs from 'node:fs/promises'
import { inject } from 'vitest'
import { openDatabase, type Database } from '../../src/store/database.js'

let template: Promise<Blob> | undefined

export function pgliteTemplate(): Promise<Blob> {
  template ??= fs.readFile(inject('pgliteTemplate')).then((b) => new Blob([b]))
  return template
}

/** a fresh, migrated in-memory PGlite store */
export async function openTestStore(opts: { migrate?: boolean } = {}): Promise<Database> {
  return openDatabase({ kind: 'pglite', dir: null }, { ...opts, loadDataDir: await pgliteTemplate() })
}
