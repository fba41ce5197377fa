import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MINUTE_MS, floorTo } from '../../../src/domain/time.js'
import { ImportFileError, describeFile, readTradeBatches, validateTradeFile } from '../../../src/sources/import/index.js'
import { FIXTURES, FUT_AGG_HEADER, FUT_TRADES_HEADER, collect, futAggRows, futTradeRows, makeZip, spotAggRows, spotTradeRows, tempDir, thrown } from './helpers.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

describe('reading Binance dumps', () => {
  it('futures aggTrades with header (committed fixture, path hint /futures/um/)', async () => {
    const path = join(FIXTURES, 'data/futures/um/daily/aggTrades/BTCUSDT/BTCUSDT-aggTrades-2024-01-01.csv')
    const d = await describeFile(path)
    expect(d).toMatchObject({ format: 'binance-aggTrades', exchange: 'binance', coin: 'BTC', marketType: 'perp', hasHeader: true })
    expect(d.inferred).toEqual({ exchange: 'default', coin: 'file-name', marketType: 'path' })
    const t = await collect(path)
    expect(t).toHaveLength(4)
    expect(t[0]).toEqual({ type: 'trade', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: 1704067200012, id: 'a1987654321', price: 42283.5, size: 0.012, side: 'buy' })
    // is_buyer_maker=true -> the taker sold
    expect(t.map((x) => x.side)).toEqual(['buy', 'sell', 'sell', 'buy'])
    expect(t.map((x) => floorTo(x.ts, MINUTE_MS) - 1704067200000)).toEqual([0, 0, 0, MINUTE_MS])
  })

  it('spot trades in µs (committed fixture): floored to ms, the :59.999999 trade stays in its minute', async () => {
    const path = join(FIXTURES, 'data/spot/daily/trades/ETHUSDT/ETHUSDT-trades-2025-03-01.csv')
    const t = await collect(path)
    expect(t.map((x) => [x.marketType, x.coin, x.id, x.ts, x.side])).toEqual([
      ['spot', 'ETH', '4567890001', 1740787200123, 'buy'],
      ['spot', 'ETH', '4567890002', 1740787259999, 'sell'],
      ['spot', 'ETH', '4567890003', 1740787260000, 'buy'],
    ])
    const minute = Date.UTC(2025, 2, 1, 0, 0)
    expect(floorTo(t[1]!.ts, MINUTE_MS)).toBe(minute)
    expect(floorTo(t[2]!.ts, MINUTE_MS)).toBe(minute + MINUTE_MS)
  })

  it('zipped (deflate) futures aggTrades without header, market type from the layout', async () => {
    const path = tmp.write('dl/BTCUSDT-aggTrades-2023-06-01.zip', makeZip([{ name: 'BTCUSDT-aggTrades-2023-06-01.csv', data: futAggRows.join('\n') + '\n' }]))
    const d = await describeFile(path)
    expect(d).toMatchObject({ marketType: 'perp', hasHeader: false, coin: 'BTC' })
    expect(d.inferred.marketType).toBe('layout')
    const t = await collect(path)
    expect(t.map((x) => [x.id, x.price, x.size, x.side, x.ts])).toEqual([
      ['a100', 42000.1, 0.5, 'sell', 1704067200000],
      ['a101', 42000.2, 0.25, 'buy', 1704067200001],
    ])
  })

  it('zipped (stored) spot aggTrades in µs, monthly name', async () => {
    const path = tmp.write('data/spot/monthly/aggTrades/BTCFDUSD/BTCFDUSD-aggTrades-2025-01.zip', makeZip([{ name: 'BTCFDUSD-aggTrades-2025-01.csv', data: spotAggRows.join('\r\n') }], 'store'))
    const t = await collect(path)
    expect(t.map((x) => [x.exchange, x.coin, x.marketType, x.id, x.ts, x.side, x.size])).toEqual([
      ['binance', 'BTC', 'spot', 'a7000', 1735689600123, 'buy', 0.001],
      ['binance', 'BTC', 'spot', 'a7001', 1735689659999, 'sell', 0.05],
    ])
    expect(floorTo(t[1]!.ts, MINUTE_MS)).toBe(Date.UTC(2025, 0, 1, 0, 0))
  })

  it('futures trades with header; raw ids are not prefixed', async () => {
    const path = tmp.write('SOLUSDT-trades-2024-02.csv', [FUT_TRADES_HEADER, ...futTradeRows].join('\n'))
    const t = await collect(path)
    expect(t.map((x) => [x.id, x.coin, x.marketType, x.side])).toEqual([
      ['1000', 'SOL', 'perp', 'sell'],
      ['1001', 'SOL', 'perp', 'buy'],
    ])
  })

  it('flags win over the file name; a flag contradicting the layout is an error', async () => {
    const path = tmp.write('data/spot/daily/trades/XRPUSDT-trades-2025-01-01.csv', spotTradeRows.join('\n'))
    const d = await describeFile(path, { coin: 'xrp2', exchange: 'bybit' })
    expect(d).toMatchObject({ exchange: 'bybit', coin: 'XRP2', marketType: 'spot' })
    expect(d.inferred).toEqual({ exchange: 'flag', coin: 'flag', marketType: 'path' })
    expect((await collect(path, { coin: 'XRP2', exchange: 'bybit' }))[0]).toMatchObject({ exchange: 'bybit', coin: 'XRP2' })
    const e = await thrown(() => describeFile(path, { marketType: 'perp' }))
    expect(e.message).toMatch(/--market-type says perp but the rows have the spot layout/)
    // no spot on hyperliquid / dydx
    expect((await thrown(() => describeFile(path, { exchange: 'dydx' }))).message).toMatch(/dydx has no spot market/)
    // path hint vs layout
    const wrong = tmp.write('data/spot/daily/aggTrades/BTCUSDT-aggTrades-2024-01-01.csv', futAggRows.join('\n'))
    expect((await thrown(() => describeFile(wrong))).message).toMatch(/path says spot but the rows have the perp layout/)
  })

  it('needs --coin when the name does not tell, --market-type when nothing tells', async () => {
    const anon = tmp.write('anon/trades.csv', futAggRows.join('\n'))
    expect((await thrown(() => describeFile(anon))).message).toMatch(/cannot infer the coin.*--coin/)
    expect(await describeFile(anon, { coin: 'BTC' })).toMatchObject({ coin: 'BTC', marketType: 'perp' })
    const empty = tmp.write('anon/BTCUSDT-aggTrades-2024-01-01.csv', '')
    expect((await thrown(() => describeFile(empty))).message).toMatch(/pass --market-type/)
    expect(await describeFile(empty, { marketType: 'spot' })).toMatchObject({ marketType: 'spot', columns: 8 })
    expect(await collect(empty, { marketType: 'spot' })).toEqual([])
    const ethbtc = tmp.write('anon/ETHBTC-aggTrades-2024-01-01.csv', futAggRows.join('\n'))
    expect((await thrown(() => describeFile(ethbtc))).message).toMatch(/ETHBTC.*--coin/)
    const cm = tmp.write('data/futures/cm/daily/trades/BTCUSD_PERP-trades-2024-01-01.csv', futTradeRows.join('\n'))
    expect((await thrown(() => describeFile(cm))).message).toMatch(/COIN-M/)
    expect((await thrown(() => describeFile(cm, { coin: 'BTC' }))).message).toMatch(/COIN-M/)
    expect((await thrown(() => describeFile(anon, { coin: 'BTC', contractSize: 0.01 }))).message).toMatch(/--contract-size/)
    await expect(describeFile(anon, { coin: 'B-T' })).rejects.toThrow(/invalid import options/)
  })

  it('a zip must hold exactly one file', async () => {
    const two = tmp.write('BTCUSDT-aggTrades-2024-01-02.zip', makeZip([{ name: 'a.csv', data: futAggRows[0]! }, { name: 'b.csv', data: futAggRows[1]! }]))
    expect((await thrown(() => describeFile(two))).message).toMatch(/exactly one file, found 2/)
    const notZip = tmp.write('BTCUSDT-aggTrades-2024-01-03.zip', 'not a zip')
    const e = await thrown(() => describeFile(notZip))
    expect(e).toBeInstanceOf(ImportFileError)
    expect(e.message).toMatch(/cannot read zip/)
  })

  it('skips repeated headers of concatenated files and blank lines; no trailing newline needed', async () => {
    const path = tmp.write('BTCUSDT-aggTrades-2024-01.csv', [FUT_AGG_HEADER, futAggRows[0], '', FUT_AGG_HEADER, futAggRows[1]].join('\n'))
    expect((await collect(path)).map((t) => t.id)).toEqual(['a100', 'a101'])
  })

  it('yields batches', async () => {
    const rows = Array.from({ length: 50_000 }, (_, i) => `${i},100.5,0.1,${i},${i},${1704067200000 + i},${i % 2 ? 'true' : 'false'}`)
    const path = tmp.write('BIGUSDT-aggTrades-2024-01-01.csv', rows.join('\n') + '\n')
    let n = 0
    let batches = 0
    for await (const b of readTradeBatches(path, { marketType: 'perp' })) (n += b.length), batches++
    expect(n).toBe(50_000)
    expect(batches).toBeGreaterThan(1)
  })
})

describe('malformed rows', () => {
  // line numbers are physical lines: header = 1
  const lines = [
    FUT_AGG_HEADER, // 1
    futAggRows[0], // 2
    '102,42000.30,0.1,1004,1004,1704067200002', // 3: 6 columns
    '103,abc,0.1,1005,1005,1704067200003,false', // 4: price
    '', // 5: blank, fine
    '104,42000.30,-0.1,1006,1006,1704067200004,false', // 6: negative size
    '105,42000.30,0.1,1007,1007,17040672x0004,false', // 7: timestamp
    '106,42000.30,0.1,1008,1008,1704067200005,maybe', // 8: boolean
    '107,42000.30,0.1,1009,1009,1704067200006,true', // 9: fine
    '108,,0.1,1010,1010,1704067200007,true', // 10: empty price
    '109,42000.30,0,1011,1011,1704067200008,true', // 11: zero size
  ]
  const path = tmp.write('data/futures/um/daily/aggTrades/BTCUSDT-aggTrades-2024-01-05.csv', lines.join('\n') + '\n')

  it('readTradeFile throws at the first bad row with file name and line number', async () => {
    const e = await thrown(() => collect(path))
    expect(e).toBeInstanceOf(ImportFileError)
    expect(e.line).toBe(3)
    expect(e.file).toBe(path)
    expect(e.message).toBe(`${path}:3: expected 7 columns, got 6`)
  })

  it('validateTradeFile collects every error with its line and summarizes the good rows', async () => {
    const v = await validateTradeFile(path)
    expect(v.ok).toBe(false)
    expect(v.errors.map((e) => e.line)).toEqual([3, 4, 6, 7, 8, 10, 11])
    expect(v.errors.map((e) => e.message)).toEqual([
      'expected 7 columns, got 6',
      'bad price "abc"',
      'bad size "-0.1" (must be a positive number)',
      'bad timestamp "17040672x0004"',
      'bad is_buyer_maker "maybe"',
      'bad price ""',
      'bad size "0" (must be a positive number)',
    ])
    expect(v).toMatchObject({ rows: 2, errorCount: 7, firstTs: 1704067200000, lastTs: 1704067200006, markets: ['binance:BTC:perp'] })
    const capped = await validateTradeFile(path, {}, { maxErrors: 2 })
    expect(capped.errors).toHaveLength(2)
    expect(capped.errorCount).toBe(7)
  })

  it('validateTradeFile on a good file; file-level problems become line-0 errors', async () => {
    const good = await validateTradeFile(join(FIXTURES, 'data/futures/um/daily/aggTrades/BTCUSDT/BTCUSDT-aggTrades-2024-01-01.csv'))
    expect(good).toMatchObject({ ok: true, rows: 4, skipped: 0, errors: [], firstTs: 1704067200012, lastTs: 1704067260000, outOfOrder: 0 })
    const missing = await validateTradeFile(join(tmp.root, 'nope-aggTrades-2024-01-01.csv'))
    expect(missing.ok).toBe(false)
    expect(missing.errors[0]!.line).toBe(0)
    expect(missing.description).toBeNull()
  })

  it('line numbers survive CRLF and zips', async () => {
    const zip = tmp.write('ADAUSDT-aggTrades-2024-01-01.zip', makeZip([{ name: 'ADAUSDT-aggTrades-2024-01-01.csv', data: [FUT_AGG_HEADER, futAggRows[0], futAggRows[1], '110,0.5,-1,1,1,1704067200009,true'].join('\r\n') }]))
    const v = await validateTradeFile(zip)
    expect(v.errors).toEqual([{ line: 4, message: 'bad size "-1" (must be a positive number)' }])
    expect(v.rows).toBe(2)
  })
})
