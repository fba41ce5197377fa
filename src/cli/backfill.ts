// npm run backfill -- [--days 30] [--seed 42]
// Fill the store with simulated history (newest day first, only what is missing), with progress.
import { pino } from 'pino'
import { createServices } from '../bootstrap.js'
import { loadConfig } from '../config.js'
import { planBackfill, runBackfill } from '../ingest/backfill.js'
import { claimStoreFor } from '../sources/source-choice.js'
import { DEFAULT_COINS } from '../domain/coins.js'
import { WorkerHistory } from '../sources/simulator/worker-history.js'
import { BACKFILL_USAGE, parseBackfillArgs, UsageError } from './backfill-args.js'
import { backfillReporter, describePlan } from './backfill-progress.js'

async function main(): Promise<number> {
  const args = parseBackfillArgs(process.argv.slice(2))
  if (args.help) {
    console.log(BACKFILL_USAGE)
    return 0
  }
  const config = loadConfig()
  const days = args.days ?? config.BACKFILL_DAYS
  const seed = args.seed ?? config.SIM_SEED
  const services = await createServices(config, { logger: pino({ level: 'warn' }) })
  const sourceName = `simulator:${seed}`
  const now = Date.now()
  // simulated history never goes into a store of live or replayed data
  await claimStoreFor(config, services.db, 'simulator', `npm run backfill (${sourceName})`, now)
  const t0 = Date.now()
  // simulated on a worker thread while this one writes (src/sources/simulator/worker-history.ts)
  const history = new WorkerHistory({ seed, coins: DEFAULT_COINS })
  try {
    const chunks = await planBackfill(services.db, sourceName, now, days)
    console.log(`backfill: ${describePlan(chunks)}`)
    if (!chunks.length) return 0
    const reporter = backfillReporter(chunks, process.stdout)
    const out = await runBackfill({
      db: services.db,
      market: services.market,
      source: history,
      sourceName,
      now,
      days,
      onProgress: (p) => reporter.update(p),
    })
    reporter.stop()
    console.log(`backfilled ${out.bars} 1-minute bars in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
    return 0
  } finally {
    await history.close()
    await services.db.close()
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof UsageError ? e.message : e instanceof Error ? e.message : e)
    process.exit(e instanceof UsageError ? 2 : 1)
  },
)
