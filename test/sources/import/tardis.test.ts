import { afterAll, describe, expect, it } from 'vitest'
import { ImportFileError, OKX_SWAP_CONTRACT_SIZES, describeFile, validateTradeFile } from '../../../src/sources/import/index.js'
import { collect, tempDir, thrown } from './helpers.js'

const tmp = tempDir()
afterAll(() => tmp.cleanup())

const H = 'exchange,symbol,timestamp,local_timestamp,id,side,price,amount'
const csv = (...rows: string[]) => [H, ...rows].join('\n') + '\n'

describe('tardis normalized trades', () => {
  it('reads a .csv.gz, µs timestamps floored, taker side kept', async () => {
    const path = tmp.write(
      'binance-futures_trades_2024-01-01_BTCUSDT.csv.gz',
      csv(
        'binance-futures,BTCUSDT,1704067200012345,1704067200013000,3300000001,buy,42283.5,0.012',
        'binance-futures,BTCUSDT,1704067259999999,1704067260000100,3300000002,sell,42283.4,0.5',
      ),
    )
    const d = await describeFile(path)
    expect(d).toMatchObject({ format: 'tardis-trades', exchange: 'binance', coin: 'BTC', marketType: 'perp', sourceExchange: 'binance-futures', symbol: 'BTCUSDT', contractSize: null })
    const t = await collect(path)
    expect(t).toEqual([
      { type: 'trade', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: 1704067200012, id: '3300000001', price: 42283.5, size: 0.012, side: 'buy' },
      { type: 'trade', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: 1704067259999, id: '3300000002', price: 42283.4, size: 0.5, side: 'sell' },
    ])
  })

  it('maps every supported venue', async () => {
    const rows: [string, string, string, string, string][] = [
      ['binance', 'ETHUSDT', 'binance', 'ETH', 'spot'],
      ['bybit', 'SOLUSDT', 'bybit', 'SOL', 'perp'],
      ['bybit-spot', 'SOLUSDT', 'bybit', 'SOL', 'spot'],
      ['okex', 'BTC-USDT', 'okx', 'BTC', 'spot'],
      ['hyperliquid', 'BTC', 'hyperliquid', 'BTC', 'perp'],
      ['dydx-v4', 'ETH-USD', 'dydx', 'ETH', 'perp'],
    ]
    for (const [tex, sym, exchange, coin, marketType] of rows) {
      const path = tmp.write(`v/${tex}.csv`, csv(`${tex},${sym},1704067200000000,1704067200000500,77,buy,100,2`))
      expect((await collect(path))[0], tex).toMatchObject({ exchange, coin, marketType, size: 2 })
    }
  })

  it('OKX swap amounts are contracts: default ctVal for BTC/ETH, --contract-size for others', async () => {
    expect(OKX_SWAP_CONTRACT_SIZES).toMatchObject({ BTC: 0.01, ETH: 0.1 })
    const path = tmp.write(
      'okex-swap_trades_2024-01-01_PERPETUALS.csv.gz',
      csv(
        'okex-swap,BTC-USDT-SWAP,1704067200000000,1704067200000500,1,buy,42000,3',
        'okex-swap,ETH-USDT-SWAP,1704067200000000,1704067200000500,2,sell,2300,25',
      ),
    )
    const t = await collect(path)
    expect(t.map((x) => [x.coin, x.size])).toEqual([
      ['BTC', 0.03],
      ['ETH', 2.5],
    ])
    expect((await describeFile(path)).contractSize).toBe(0.01)
    // per-coin table overrides the default
    expect((await collect(path, { contractSize: { btc: 1, ETH: 1 } })).map((x) => x.size)).toEqual([3, 25])

    const doge = tmp.write('okex-swap_trades_2024-01-01_DOGE-USDT-SWAP.csv', csv('okex-swap,DOGE-USDT-SWAP,1704067200000000,1704067200000500,9,buy,0.09,4'))
    expect((await thrown(() => describeFile(doge))).message).toMatch(/contract size of DOGE is unknown; pass --contract-size/)
    expect((await collect(doge, { contractSize: 1000 }))[0]).toMatchObject({ coin: 'DOGE', size: 4000, exchange: 'okx', marketType: 'perp' })
    // contract size makes no sense for coin-denominated venues
    const bin = tmp.write('c/binance.csv', csv('binance-futures,BTCUSDT,1704067200000000,1704067200000500,1,buy,1,1'))
    expect((await thrown(() => describeFile(bin, { contractSize: 0.01 }))).message).toMatch(/already in coins/)
  })

  it('side "unknown" is skipped and counted by default, or an error on request', async () => {
    const path = tmp.write(
      'u/hyperliquid.csv',
      csv(
        'hyperliquid,ETH,1704067200000000,1704067200000500,1,buy,2300,1',
        'hyperliquid,ETH,1704067200100000,1704067200100500,2,unknown,2300,1',
        'hyperliquid,ETH,1704067200200000,1704067200200500,3,sell,2300,1',
      ),
    )
    expect((await collect(path)).map((t) => t.id)).toEqual(['1', '3'])
    const v = await validateTradeFile(path)
    expect(v).toMatchObject({ ok: true, rows: 2, skipped: 1 })
    const strict = await validateTradeFile(path, { unknownSide: 'error' })
    expect(strict.errors).toEqual([{ line: 3, message: 'side is "unknown"' }])
  })

  it('synthesizes stable ids when the id column is empty; falls back to local_timestamp', async () => {
    const path = tmp.write(
      'ids/dydx.csv',
      csv('dydx-v4,BTC-USD,1704067200000001,1704067200000500,,buy,42000,0.1', 'dydx-v4,BTC-USD,,1704067200000900,,sell,42000,0.2'),
    )
    const t = await collect(path)
    expect(t.map((x) => [x.id, x.ts])).toEqual([
      ['t1704067200000001-2', 1704067200000],
      ['t1704067200000900-3', 1704067200000],
    ])
    expect((await collect(path)).map((x) => x.id)).toEqual(t.map((x) => x.id))
  })

  it('mixed-symbol files map each row; --coin cannot be forced onto them', async () => {
    const path = tmp.write(
      'mix/bybit.csv',
      csv('bybit,BTCUSDT,1704067200000000,1704067200000500,a,buy,42000,0.1', 'bybit,ETHUSDT,1704067200000000,1704067200000500,b,buy,2300,1'),
    )
    const v = await validateTradeFile(path)
    expect(v.markets).toEqual(['bybit:BTC:perp', 'bybit:ETH:perp'])
    const forced = await validateTradeFile(path, { coin: 'BTC' })
    expect(forced.errors).toEqual([{ line: 3, message: 'file mixes symbols (bybit,BTCUSDT / bybit,ETHUSDT); --coin/--exchange cannot be applied to it' }])
  })

  it('malformed rows and unsupported markets carry line numbers', async () => {
    const path = tmp.write(
      'bad/bybit.csv.gz',
      csv(
        'bybit,BTCUSDT,1704067200000000,1704067200000500,1,buy,42000,0.1', // 2
        'bybit,BTCUSDT,1704067200000000,1704067200000500,2,BUY,42000,0.1', // 3 side
        'bybit,BTCUSDT,1704067200000000,1704067200000500,3,buy,42000', // 4 columns
        'bybit,BTCUSDT,1704067200000000,1704067200000500,4,buy,-1,0.1', // 5 price
        'bybit,BTCUSD,1704067200000000,1704067200000500,5,buy,42000,100', // 6 inverse
        'deribit,BTC-PERPETUAL,1704067200000000,1704067200000500,6,buy,42000,10', // 7 venue
        'bybit,BTCUSDT,,,7,buy,42000,0.1', // 8 no timestamp
      ),
    )
    const v = await validateTradeFile(path)
    expect(v.errors.map((e) => e.line)).toEqual([3, 4, 5, 6, 7, 8])
    expect(v.errors[0]!.message).toBe('bad side "BUY"')
    expect(v.errors[3]!.message).toMatch(/inverse/)
    expect(v.errors[4]!.message).toMatch(/unsupported tardis exchange "deribit"/)
    expect(v.rows).toBe(1)
    const e = await thrown(() => collect(path))
    expect(e).toBeInstanceOf(ImportFileError)
    expect(e.message).toBe(`${path}:3: bad side "BUY"`)
  })

  it('rejects a wrong header and unsupported venues up front', async () => {
    const hdr = tmp.write('h/x.csv', 'exchange,symbol,timestamp,id,side,price,amount\n')
    expect((await thrown(() => describeFile(hdr))).message).toMatch(/tardis header must be/)
    const inv = tmp.write('h/okex-swap.csv', csv('okex-swap,BTC-USD-SWAP,1704067200000000,1704067200000500,1,buy,42000,3'))
    expect((await thrown(() => describeFile(inv))).message).toMatch(/inverse.*--coin to force/)
    const empty = tmp.write('hyperliquid_trades_2024-01-01_SOL.csv.gz', H + '\n')
    expect(await describeFile(empty)).toMatchObject({ exchange: 'hyperliquid', coin: 'SOL', marketType: 'perp' })
    expect(await validateTradeFile(empty)).toMatchObject({ ok: true, rows: 0, firstTs: null, lastTs: null })
  })
})
