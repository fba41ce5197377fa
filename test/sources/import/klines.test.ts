import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { type Kline } from '../../../src/domain/minute-bars.js'
import { MINUTE_MS, floorTo } from '../../../src/domain/time.js'
import type { TradeEvent } from '../../../src/domain/events.js'
import { ImportFileError, parseBinanceKlineCsv, readBinanceKlineFile } from '../../../src/sources/import/index.js'
import { collect, makeZip, tempDir } from './helpers.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

const HEADER = 'open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore'
// real Binance USD-M REST klines (same column order as the CSV dump)
const REST = JSON.parse(readFileSync('/work/shared/fixtures/exchanges/binance/klines.json', 'utf8')) as (string | number)[][]
const restCsv = REST.map((r) => r.join(',')).join('\n') + '\n'

describe('Binance kline CSV', () => {
  it('parses the real REST sample converted to CSV lines, with and without header', () => {
    const k = parseBinanceKlineCsv(restCsv)
    expect(k).toHaveLength(REST.length)
    expect(k[0]).toEqual({ ts: 1712738460000, open: 71481.9, high: 71481.9, low: 71481.9, close: 71481.9, volume: 0.002, quoteVolume: 142.9638, buyVolume: 0.002, trades: 1 })
    expect(k[1]).toMatchObject({ ts: 1712738520000, open: 71471, high: 71471, low: 70459.4, close: 70459.4, volume: 0.12, buyVolume: 0.061, trades: 9 })
    expect(parseBinanceKlineCsv(HEADER + '\n' + restCsv)).toEqual(k)
    for (const x of k) expect(x.ts % MINUTE_MS).toBe(0)
  })

  it('µs open times (spot 2025+) become ms', () => {
    const k = parseBinanceKlineCsv('1735689600000000,95000.01,95010,94990,95005,1.5,1735689659999999,142507.5,20,0.7,66503.5,0\n')
    expect(k[0]!.ts).toBe(1735689600000)
  })

  it('malformed rows raise with line numbers', () => {
    const rows = restCsv.trim().split('\n')
    const bad = (line: string, at: number) => [HEADER, ...rows.slice(0, at - 2), line].join('\n')
    expect(() => parseBinanceKlineCsv(bad('1712738640000,1,2,0.5,1,3', 3), 'k.csv')).toThrow('k.csv:3: expected 12 columns, got 6')
    expect(() => parseBinanceKlineCsv(bad('1712738640000,x,2,0.5,1,3,1712738699999,3,1,1,1,0', 4), 'k.csv')).toThrow('k.csv:4: bad open "x"')
    expect(() => parseBinanceKlineCsv(bad('1712738640000,1,2,0.5,1,-3,1712738699999,3,1,1,1,0', 2), 'k.csv')).toThrow('k.csv:2: bad volume "-3"')
    expect(() => parseBinanceKlineCsv(bad('oops,1,2,0.5,1,3,1712738699999,3,1,1,1,0', 3), 'k.csv')).toThrow(ImportFileError)
  })

  it('reads zipped dumps', async () => {
    const path = tmp.write('BTCUSDT-1m-2024-04-10.zip', makeZip([{ name: 'BTCUSDT-1m-2024-04-10.csv', data: HEADER + '\n' + restCsv }]))
    expect(await readBinanceKlineFile(path)).toEqual(parseBinanceKlineCsv(restCsv))
  })
})

/** reference minute bucketing, independent of the aggregator: just enough to compare with Binance's klines */
function minuteBars(trades: TradeEvent[]): Required<Kline>[] {
  const bars = new Map<number, Required<Kline>>()
  for (const t of trades) {
    const ts = floorTo(t.ts, MINUTE_MS)
    let b = bars.get(ts)
    if (!b) bars.set(ts, (b = { ts, open: t.price, high: t.price, low: t.price, close: t.price, volume: 0, quoteVolume: 0, buyVolume: 0, trades: 0 }))
    b.high = Math.max(b.high, t.price)
    b.low = Math.min(b.low, t.price)
    b.close = t.price
    b.volume += t.size
    b.quoteVolume += t.price * t.size
    if (t.side === 'buy') b.buyVolume += t.size
    b.trades++
  }
  return [...bars.values()]
}

describe('reconciliation: trades dump -> 1m bars == Binance klines', () => {
  it('raw trades consistent with the first two real klines reproduce them (µs spot-style timestamps included)', async () => {
    const t0 = 1712738460000
    const t1 = 1712738520000
    // minute 1: one buy of 0.002 @ 71481.90. minute 2: 9 trades, open/high 71471.0, low/close 70459.4,
    // volume 0.120, taker buy 0.061, quote 8518.176. The last trade sits at :59.999999 (µs) and must stay in minute 2.
    const us = (ms: number, extra = 0) => String(ms * 1000 + extra)
    const rows: [string, number, number, boolean][] = [
      // [time, price, qty, is_buyer_maker]
      [us(t0 + 5_000, 123), 71481.9, 0.002, false],
      [us(t1 + 1_000), 71471.0, 0.01, false],
      [us(t1 + 2_000), 71341.6, 0.03, false],
      [us(t1 + 3_000), 71341.6, 0.021, false],
      [us(t1 + 4_000), 71341.6, 0.009, true],
      [us(t1 + 5_000), 70459.4, 0.01, true],
      [us(t1 + 6_000), 70459.4, 0.01, true],
      [us(t1 + 7_000), 70459.4, 0.01, true],
      [us(t1 + 8_000), 70459.4, 0.01, true],
      [us(t1 + 59_999, 999), 70459.4, 0.01, true],
    ]
    const csv = rows.map(([ts, p, q, m], i) => `${500 + i},${p.toFixed(1)},${q.toFixed(3)},${(p * q).toFixed(5)},${ts},${m ? 'True' : 'False'},True`).join('\n')
    const path = tmp.write('data/spot/daily/trades/BTCUSDT/BTCUSDT-trades-2024-04-10.csv', csv)
    const bars = minuteBars(await collect(path))
    const klines = parseBinanceKlineCsv(restCsv).slice(0, 2)
    expect(bars).toHaveLength(2)
    for (let i = 0; i < 2; i++) {
      const [b, k] = [bars[i]!, klines[i]!]
      expect({ ts: b.ts, open: b.open, high: b.high, low: b.low, close: b.close, trades: b.trades }).toEqual({ ts: k.ts, open: k.open, high: k.high, low: k.low, close: k.close, trades: k.trades })
      expect(b.volume).toBeCloseTo(k.volume, 9)
      expect(b.buyVolume).toBeCloseTo(k.buyVolume, 9)
      expect(b.quoteVolume).toBeCloseTo(k.quoteVolume, 6)
    }
  })
})
