// npm run db:migrate            apply pending migrations to the configured store (what start-up does too)
// npm run db:migration:create -- <name>   author the next migration from prisma/schema.prisma (no server needed)
// tsx src/cli/migrate.ts check  exit 1 when schema.prisma and the migration history disagree
import { PGlite } from '@electric-sql/pglite'
import { loadConfig } from '../config.js'
import { pgliteMigrationFactory } from '../store/migration-adapters.js'
import { openDatabase } from '../store/database.js'
import { applyMigrations, createMigration, pendingSchemaChanges } from '../store/migrations.js'

async function main([cmd = 'deploy', name = 'migration']: string[]): Promise<number> {
  if (cmd === 'create' || cmd === 'check') {
    // diff needs no real database: an in-memory PGlite replays the history
    const pg = new PGlite()
    try {
      const factory = await pgliteMigrationFactory(pg)
      if (cmd === 'check') {
        const sql = await pendingSchemaChanges(factory)
        if (!sql) return console.log('schema.prisma and prisma/migrations agree'), 0
        console.error(`schema.prisma has changes no migration holds; run npm run db:migration:create -- <name>:\n${sql}`)
        return 1
      }
      const dir = await createMigration(factory, { name })
      console.log(dir ? `created prisma/migrations/${dir}` : 'nothing to do: schema.prisma and the migrations agree')
      return 0
    } finally {
      await pg.close()
    }
  }
  if (cmd === 'deploy') {
    const config = loadConfig()
    const db = await openDatabase(config.store, { migrate: false })
    try {
      const applied = await applyMigrations(await db.migrationFactory())
      console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date')
      return 0
    } finally {
      await db.close()
    }
  }
  console.error('usage: migrate.ts deploy | create <name> | check')
  return 2
}

// exit explicitly: the wasm engine leaves a lock-timeout timer pending
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e)
    process.exit(1)
  },
)
