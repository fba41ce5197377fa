// Once per run, before any test file: ONE embedded PostgreSQL cluster (the service's own launcher,
// src/store/embedded/) in a temporary directory, holding a fully migrated template database. Each test store is a
// database created from that template (test/helpers/store.ts: CREATE DATABASE … TEMPLATE, about a tenth of a second)
// instead of initdb and the migrations again. The machine's PostgreSQL on 5432 is not needed. Stopped after the run.
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { startEmbeddedStore } from '../src/store/embedded/index.js'
import { pgMigrationFactory } from '../src/store/migration-adapters.js'
import { applyMigrations } from '../src/store/migrations.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** the test cluster's URL (its `postgres` database: CREATE DATABASE runs there) */
    testClusterUrl: string
    /** the migrated template database's name */
    testTemplate: string
  }
}

export const TEMPLATE = 'perp_template'

/** a cluster for tests: many stores at once (each a pool of up to 13 connections), and durability not wanted */
const TEST_SETTINGS = { max_connections: '400', fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', shared_buffers: '128MB' }

export default async function setup(project: TestProject) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'perp-test-cluster-'))
  // as root the cluster runs as the OS user postgres, which must reach it (mkdtemp makes the directory 0700)
  await fs.chmod(dir, 0o755)
  const quiet = { info: () => {}, warn: () => {}, error: (m: string) => process.stderr.write(`test cluster: ${m}\n`) }
  const store = await startEmbeddedStore({ engine: 'postgres', dataDir: dir, log: quiet, settings: TEST_SETTINGS })
  const admin = new pg.Client({ connectionString: store.url })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${TEMPLATE}`)
  await admin.end()
  const u = new URL(store.url)
  u.pathname = `/${TEMPLATE}`
  await applyMigrations(await pgMigrationFactory(u.toString()))
  project.provide('testClusterUrl', store.url)
  project.provide('testTemplate', TEMPLATE)
  return async () => {
    await store.stop()
    await fs.rm(dir, { recursive: true, force: true })
  }
}
