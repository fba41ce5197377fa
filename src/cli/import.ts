// npm run import -- [--exchange E] [--coin C] [--market-type perp|spot] [--contract-size N] FILE...
// Load historical trades (Binance public-data aggTrades/trades CSV, plain or zipped; Tardis-style trade
// CSVs) through the normal 1-minute aggregation. Every file is validated first; each is written atomically.
import { parseArgs } from 'node:util'
import { pino } from 'pino'
import { createServices } from '../bootstrap.js'
import { loadConfig } from '../config.js'
import { EXCHANGE_IDS, type ExchangeId, type MarketType } from '../domain/exchanges.js'
import { importFile, ImportValidationError, validateFiles } from '../sources/import/importer.js'
import type { ImportOverrides } from '../sources/import/index.js'

const USAGE = `usage: npm run import -- [--exchange ${EXCHANGE_IDS.join('|')}] [--coin SYMBOL] [--market-type perp|spot] [--contract-size N] FILE...
  Binance public data: BTCUSDT-aggTrades-2024-01-01.zip, BTCUSDT-trades-2024-01.csv (with or without header, ms or µs)
  Tardis trades CSV:   binance-futures_trades_2024-01-01_BTCUSDT.csv.gz (exchange, symbol, timestamp, local_timestamp, id, side, price, amount)
  Binance klines:      BTCUSDT-1m-2024-01-01.zip (1-minute only): stored as the venue's klines (taker split from the
                       taker-buy volume, no volume at price), never over a minute already folded from trades
  The coin, exchange and market type come from the file name and path; flags win. Stop the service first when
  importing into the embedded store (one process owns DATA_DIR); with PostgreSQL the running service sees the data.`

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      exchange: { type: 'string' },
      coin: { type: 'string' },
      'market-type': { type: 'string' },
      'contract-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help || positionals.length === 0) {
    console.log(USAGE)
    return values.help ? 0 : 2
  }
  const overrides: ImportOverrides = {}
  if (values.exchange) {
    const e = values.exchange.toLowerCase()
    if (!(EXCHANGE_IDS as readonly string[]).includes(e)) return fail(`--exchange must be one of ${EXCHANGE_IDS.join(', ')}`)
    overrides.exchange = e as ExchangeId
  }
  if (values.coin) overrides.coin = values.coin.toUpperCase()
  if (values['market-type']) {
    if (!['perp', 'spot'].includes(values['market-type'])) return fail('--market-type must be perp or spot')
    overrides.marketType = values['market-type'] as MarketType
  }
  if (values['contract-size']) {
    const n = Number(values['contract-size'])
    if (!(n > 0)) return fail('--contract-size must be a positive number')
    overrides.contractSize = n
  }

  try {
    const checked = await validateFiles(positionals, overrides)
    for (const r of checked) console.log(`ok    ${r.file}: ${r.rows} ${r.description?.format === 'binance-klines' ? 'klines' : 'trades'} (${r.markets.join(', ')})`)
  } catch (e) {
    if (e instanceof ImportValidationError) return fail(e.message)
    throw e
  }
  const services = await createServices(loadConfig(), { logger: pino({ level: 'warn' }) })
  try {
    for (const f of positionals) {
      const t0 = Date.now()
      const r = await importFile(services.db, services.market, f, overrides)
      const span = r.firstTs !== null ? `${new Date(r.firstTs).toISOString()} .. ${new Date(r.lastTs!).toISOString()}` : 'no trades'
      const took = `${((Date.now() - t0) / 1000).toFixed(1)} s`
      if (r.klines) console.log(`done  ${f}: ${r.klines} klines → ${r.bars} 1-minute bars (${span}; ${r.klines - r.bars} minutes already folded from trades kept), ${took}`)
      else console.log(`done  ${f}: ${r.trades} trades → ${r.bars} 1-minute bars (${span}), ${r.duplicates} duplicate ids, ${took}`)
    }
    console.log('Read it back with /v1/markets/ohlc?...&end=<Unix ms> (the lookback window ends at `end`).')
    return 0
  } finally {
    await services.db.close()
  }
}

function fail(msg: string): number {
  console.error(msg)
  return 1
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e)
    process.exit(1)
  },
)
