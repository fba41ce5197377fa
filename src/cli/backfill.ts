// npm run backfill -- [--days 30] [--seed 42]
// Fill the store with simulated history (newest day first, only what is missing), with a progress bar.
import { parseArgs } from 'node:util'
import { SingleBar, Presets } from 'cli-progress'
import { pino } from 'pino'
import { createServices } from '../bootstrap.js'
import { loadConfig } from '../config.js'
import { runBackfill } from '../market/backfill.js'
import { DEFAULT_COINS } from '../market/coins.js'
import { MarketSimulator } from '../market/simulator/index.js'

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { days: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } } })
  if (values.help) {
    console.log('usage: npm run backfill -- [--days N] [--seed S]   (defaults: BACKFILL_DAYS, SIM_SEED)')
    return 0
  }
  const config = loadConfig({ ...process.env, ...(values.days ? { BACKFILL_DAYS: values.days } : {}), ...(values.seed ? { SIM_SEED: values.seed } : {}) })
  const services = await createServices(config, { logger: pino({ level: 'warn' }) })
  const bar = new SingleBar({ format: 'backfill |{bar}| {percentage}% | {value}/{total} days | {bars} bars | {day} | ETA {eta_formatted}', hideCursor: true }, Presets.shades_classic)
  let started = false
  const t0 = Date.now()
  try {
    const out = await runBackfill({
      db: services.db,
      market: services.market,
      source: new MarketSimulator({ seed: config.SIM_SEED, coins: DEFAULT_COINS }),
      sourceName: `simulator:${config.SIM_SEED}`,
      now: Date.now(),
      days: config.BACKFILL_DAYS,
      onProgress: (p) => {
        if (!started) bar.start(p.chunks, 0, { bars: 0, day: '' })
        started = true
        bar.update(p.chunk, { bars: p.bars, day: new Date(p.from).toISOString().slice(0, 10) })
      },
    })
    if (started) bar.stop()
    console.log(out.chunks ? `backfilled ${out.chunks} day chunk(s), ${out.bars} 1-minute bars in ${((Date.now() - t0) / 1000).toFixed(1)} s` : 'nothing to do: the history is complete')
    return 0
  } finally {
    await services.db.close()
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e)
    process.exit(1)
  },
)
