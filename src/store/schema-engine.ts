// Prisma's schema engine compiled to WASM, driven through a driver adapter: the native engine binary
// (which would have to be downloaded) is never needed. Mirrors prisma's WasmSchemaEngineLoader.
import fs from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils'

const require = createRequire(import.meta.url)

// The engine's API is JSON-in/JSON-out; these are the call shapes we use.
export interface MigrationsList {
  baseDir: string
  lockfile: { path: string; content: string | null }
  migrationDirectories: { path: string; migrationFile: { path: string; content: { tag: 'ok' | 'error'; value: string } } }[]
  shadowDbInitScript: string
}
export interface SchemaEngine {
  applyMigrations(input: { migrationsList: MigrationsList; filters: Filters }): Promise<{ appliedMigrationNames: string[] }>
  diff(input: unknown): Promise<{ exitCode: number; stdout: string }>
  diagnoseMigrationHistory(input: unknown): Promise<unknown>
  reset(input: { filter: Filters }): Promise<void>
  close(): Promise<void>
}
export interface Filters {
  externalTables: string[]
  externalEnums: string[]
}
export const NO_FILTERS: Filters = { externalTables: [], externalEnums: [] }

interface EngineClass {
  new: (params: unknown, log: (msg: string) => void, factory: unknown) => Promise<Record<string, (...a: unknown[]) => Promise<unknown>> & { free(): void }>
}

// The glue is a node_modules ESM file, so Node loads it once per process, whatever reloads this module (the
// test suite's vi.resetModules(), two copies of this code in one process). Its WebAssembly instance must be
// created once per glue too: a second __wbg_set_wasm would swap the heap under every engine, closure and
// finalizer of the first (seen as "Option::unwrap_throw() on a None value" and migrations that never settle).
const INSTANCES = Symbol.for('perp-analytics.schema-engine-wasm')
type Registry = WeakMap<object, Promise<EngineClass>>

async function loadEngineClass(): Promise<EngineClass> {
  const bgPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg')
  const glue = (await import(pathToFileURL(bgPath).href)) as Record<string, unknown> & {
    __wbg_set_wasm(exports: WebAssembly.Exports): void
    SchemaEngine: EngineClass
  }
  const registry = ((globalThis as Record<symbol, unknown>)[INSTANCES] ??= new WeakMap()) as Registry
  let engineClass = registry.get(glue)
  if (!engineClass) {
    engineClass = (async () => {
      const bytes = await fs.readFile(path.join(path.dirname(bgPath), 'schema_engine_bg.wasm'))
      // wasm-bindgen "bundler" target: the imports are wired by hand
      const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': glue as WebAssembly.ModuleImports })
      glue.__wbg_set_wasm(instance.exports)
      ;(instance.exports.__wbindgen_start as () => void)()
      return glue.SchemaEngine
    })()
    registry.set(glue, engineClass)
  }
  return engineClass
}

/** Open the engine on an adapter factory. close() also disposes the connections the engine never closes itself. */
export async function openSchemaEngine(
  factory: SqlMigrationAwareDriverAdapterFactory,
  opts: { schemaPath?: string; log?: (msg: string) => void } = {},
): Promise<SchemaEngine> {
  const Engine = await loadEngineClass()
  const opened: SqlDriverAdapter[] = []
  const tracking: SqlMigrationAwareDriverAdapterFactory = {
    adapterName: factory.adapterName,
    provider: factory.provider,
    connect: async () => {
      const adapter = await factory.connect()
      opened.push(adapter)
      return adapter
    },
    connectToShadowDb: () => factory.connectToShadowDb(),
  }
  const bound = bindMigrationAwareSqlAdapterFactory(tracking)
  // errors thrown inside the adapter reach us as "External error id#N": put the real message back
  const explain = (e: unknown) => {
    if (e instanceof Error)
      e.message = e.message.replace(/External error id#(\d+)/g, (m, id: string) => {
        const rec = bound.errorRegistry.consumeError(Number(id)) as { error?: { message?: string } } | undefined
        return rec ? `${m}: ${rec.error?.message ?? String(rec.error)}` : m
      })
    return e
  }
  const datamodels = opts.schemaPath ? [[opts.schemaPath, await fs.readFile(opts.schemaPath, 'utf8')]] : undefined
  const engine = await Engine.new({ datamodels }, opts.log ?? (() => {}), bound).catch((e: unknown) => Promise.reject(explain(e)))
  const call =
    (name: string) =>
    async (...args: unknown[]) => {
      try {
        return await engine[name]!.apply(engine, args)
      } catch (e) {
        throw explain(e)
      }
    }
  return {
    applyMigrations: call('applyMigrations') as SchemaEngine['applyMigrations'],
    diff: call('diff') as SchemaEngine['diff'],
    diagnoseMigrationHistory: call('diagnoseMigrationHistory'),
    reset: call('reset') as SchemaEngine['reset'],
    async close() {
      engine.free()
      await Promise.all(opened.splice(0).map((a) => a.dispose()))
    },
  }
}
