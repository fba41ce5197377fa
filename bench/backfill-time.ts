// Times the simulated backfill on a fresh embedded store: `npx tsx bench/backfill-time.ts [days] [coins]`.
// Prints one JSON line: wall time, bars written, and the time the simulator alone takes for the same range.
// BENCH_HISTORY=main simulates on the main thread instead of the worker thread npm start uses.
import { pino } from 'pino'
import { createServices } from '../src/bootstrap.js'
import { loadConfig } from '../src/config.js'
import { runBackfill } from '../src/ingest/backfill.js'
import { DAY_MS, MINUTE_MS } from '../src/domain/time.js'
import { DEFAULT_COINS } from '../src/domain/coins.js'
import { MarketSimulator } from '../src/sources/simulator/index.js'
import { simulatorAlone } from './targets.js'
import { WorkerHistory } from '../src/sources/simulator/worker-history.js'

const days = Number(process.argv[2] ?? 30)
const coins = process.argv[3] ? process.argv[3].split(',') : [...DEFAULT_COINS]
const now = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS

// the simulator alone, into a sink that only counts
const alone = simulatorAlone(days, coins)

// a fresh embedded store on disk, as npm start uses (DATA_DIR or DATABASE_URL choose another place)
const fresh = process.env.DATA_DIR || process.env.DATABASE_URL ? null : (await import('node:fs')).mkdtempSync('/tmp/backfill-time-')
if (fresh) (await import('node:fs')).chmodSync(fresh, 0o755) // as root the PostgreSQL runs as the OS user postgres
const config = loadConfig({ ...process.env, ...(fresh && { DATA_DIR: fresh }), LOG_LEVEL: 'warn' })
const services = await createServices(config, { logger: pino({ level: 'warn' }) })
const cpu1 = process.cpuUsage()
const t1 = performance.now()
// as npm start backfills: simulated on a worker thread (BENCH_HISTORY=main: on this thread, as before)
const source = process.env.BENCH_HISTORY === 'main' ? new MarketSimulator({ seed: 42, coins }) : new WorkerHistory({ seed: 42, coins })
const r = await runBackfill({ db: services.db, market: services.market, source, sourceName: 'time', now, days })
const wallMs = performance.now() - t1
if (source instanceof WorkerHistory) await source.close()
const bfCpu = process.cpuUsage(cpu1)
// CPU seconds (user + system) too: on a shared machine they vary less than wall time
const cpuS = (c: NodeJS.CpuUsage) => +((c.user + c.system) / 1e6).toFixed(1)
console.log(JSON.stringify({ days, coins: coins.length, simulatorOnlyS: +(alone.ms / 1000).toFixed(1), simulatorOnlyCpuS: +(alone.cpuMs / 1000).toFixed(1), simulatorEvents: alone.events, backfillS: +(wallMs / 1000).toFixed(1), backfillCpuS: cpuS(bfCpu), bars: r.bars }))
await services.db.close()
process.exit(0)
