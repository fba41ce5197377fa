// npm run record -- --minutes N [--exchanges binance,okx] [--coins BTC,ETH] [--backfill-days D] [--out recordings/<time>.jsonl]
// Runs the live connectors for N minutes, and the venues' history services over the last D days, and writes
// everything they receive (raw REST bodies and WebSocket frames, with receive times) to one JSON-lines recording
// that MARKET_SOURCE=replay:<file> plays back, history included (docs/recordings.md).
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { Presets, SingleBar } from 'cli-progress'
import { pino } from 'pino'
import { DEFAULT_COINS } from '../domain/coins.js'
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import type { RecordProgress } from '../sources/replay/record-session.js'

export interface RecordArgs {
  minutes: number
  exchanges: ExchangeId[]
  coins: string[]
  /** days of REST history recorded (0: none) */
  backfillDays: number
  out: string
}

/** a day of history is one or two pages per coin and kind; 30 days of a dozen coins are hundreds of pages a venue */
export const DEFAULT_RECORD_BACKFILL_DAYS = 1

export class RecordArgsError extends Error {}

export const USAGE = 'usage: npm run record -- --minutes N [--exchanges binance,okx] [--coins BTC,ETH] [--backfill-days D] [--out <file>]'

/** The command line -> what to record; throws RecordArgsError naming the bad option. */
export function parseRecordArgs(argv: readonly string[], now: Date = new Date()): RecordArgs | 'help' {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        minutes: { type: 'string' },
        exchanges: { type: 'string' },
        coins: { type: 'string' },
        'backfill-days': { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    })
  } catch (e) {
    throw new RecordArgsError(`${e instanceof Error ? e.message : String(e)}\n${USAGE}`)
  }
  const v = parsed.values
  if (v.help) return 'help'
  const minutes = Number(v.minutes)
  if (v.minutes === undefined || !Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60)
    throw new RecordArgsError(`--minutes must be a number of minutes in (0, 1440], got ${JSON.stringify(v.minutes ?? null)}\n${USAGE}`)
  const days = v['backfill-days'] === undefined ? DEFAULT_RECORD_BACKFILL_DAYS : Number(v['backfill-days'])
  if (!Number.isFinite(days) || days < 0 || days > 365)
    throw new RecordArgsError(`--backfill-days must be a number of days in [0, 365] (0: no history), got ${JSON.stringify(v['backfill-days'])}\n${USAGE}`)
  const list = (s: string | undefined) => (s ?? '').split(',').map((x) => x.trim()).filter(Boolean)
  const names = list(v.exchanges).map((x) => x.toLowerCase())
  const unknown = names.filter((x) => !(EXCHANGE_IDS as readonly string[]).includes(x))
  if (unknown.length) throw new RecordArgsError(`--exchanges: unknown ${unknown.join(', ')}; use a comma-separated list of ${EXCHANGE_IDS.join(', ')}\n${USAGE}`)
  const exchanges = names.length ? ([...new Set(names)] as ExchangeId[]) : [...EXCHANGE_IDS]
  const coins = list(v.coins).map((c) => c.toUpperCase())
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  return { minutes, exchanges, coins: coins.length ? [...new Set(coins)] : [...DEFAULT_COINS], backfillDays: days, out: v.out ?? path.join('recordings', `${stamp}.jsonl`) }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`
const clock = (ms: number) => `${Math.floor(ms / 60_000)}:${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}`

/** One plain progress line (what a non-TTY gets every 30 s). */
export function progressLine(p: RecordProgress): string {
  const venues = Object.entries(p.stats.perVenue)
    .map(([v, s]) => `${v} ${s.http}/${s.ws}`)
    .join(', ')
  return `record ${clock(p.elapsedMs)} / ${clock(p.totalMs)}: ${p.stats.lines} lines (http ${p.stats.http}, ws ${p.stats.ws}), ${mb(p.stats.bytes)}${venues ? `; http/ws per venue: ${venues}` : ''}${p.history ? `; history ${historyText(p.history)}` : ''}`
}

const historyText = (h: NonNullable<RecordProgress['history']>) => (h.done ? `done, ${h.pagesDone} pages` : `${h.pagesDone} pages, ${h.pagesLeft} left`)

async function main(): Promise<number> {
  let args: RecordArgs | 'help'
  try {
    args = parseRecordArgs(process.argv.slice(2))
  } catch (e) {
    console.error(e instanceof Error ? e.message : e)
    return 2
  }
  if (args === 'help') {
    console.log(USAGE)
    return 0
  }
  // CCXT is loaded only once the arguments are good
  const { recordSession } = await import('../sources/replay/record-session.js')
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'warn' }, pino.destination(2))
  const tty = process.stdout.isTTY === true
  const bar = tty ? new SingleBar({ format: 'record |{bar}| {elapsed} / {total_time} | {lines} lines | {size} | {venues} | {history}', hideCursor: true }, Presets.shades_classic) : null
  let lastPlain = 0
  let sigint: () => void = () => {}
  const stop = new Promise<void>((resolve) => (sigint = resolve))
  process.once('SIGINT', sigint)
  process.once('SIGTERM', sigint)
  const history = args.backfillDays > 0 ? `, with ${args.backfillDays} day${args.backfillDays === 1 ? '' : 's'} of REST history` : ''
  console.log(`recording ${args.exchanges.join(', ')} (${args.coins.join(', ')}) for ${args.minutes} min${history} into ${args.out}`)
  bar?.start(Math.round(args.minutes * 60), 0, { elapsed: '0:00', total_time: clock(args.minutes * 60_000), lines: 0, size: mb(0), venues: '', history: '' })
  // <VENUE>_REST_URL / _WS_URL / _TESTNET and the proxy apply to a recording as to the service
  const { venueAccess } = (await import('../config.js')).loadConfig(process.env)
  const summary = await recordSession({
    ...args,
    access: venueAccess,
    logger,
    stop,
    onProgress: (p) => {
      if (bar) {
        const venues = Object.entries(p.stats.perVenue).map(([v, s]) => `${v} ${s.http + s.ws}`).join(' ')
        bar.update(Math.min(Math.round(p.elapsedMs / 1000), bar.getTotal()), { elapsed: clock(p.elapsedMs), lines: p.stats.lines, size: mb(p.stats.bytes), venues, history: p.history ? `history ${historyText(p.history)}` : '' })
      } else if (p.elapsedMs - lastPlain >= 30_000) {
        lastPlain = p.elapsedMs
        console.log(progressLine(p))
      }
    },
  })
  bar?.stop()
  console.log(`wrote ${summary.file}: ${summary.stats.lines} lines (http ${summary.stats.http}, ws ${summary.stats.ws}), ${mb(summary.stats.bytes)} in ${clock(summary.elapsedMs)}`)
  const h = summary.history
  if (h && !h.done)
    console.log(
      h.pagesDone + h.pagesLeft > 0
        ? `the history backfill did not finish (${h.pagesLeft} pages left): its replay records holes for them; record longer or with fewer --backfill-days`
        : 'the history backfill did not start (the venues\' market lists did not load): the recording holds no history',
    )
  console.log(`replay it: MARKET_SOURCE=replay:${summary.file} npm start`)
  return 0
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof Error ? (e.stack ?? e.message) : e)
      process.exit(1)
    },
  )
}
