import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { stopped } from '../helpers/child.js'
import { startService, type Running } from '../helpers/process.js'

// A fresh `npm start` serves analytics with data within seconds, while the history is still being backfilled
// (newest day first): the backfill must never starve the HTTP server.
describe('fresh start', () => {
  let dir = ''
  let svc: (Running & { output: () => string }) | undefined
  afterAll(async () => {
    // stopped as a user stops it, so its embedded store is gone before its directory is removed (after a SIGKILL the
    // store's watchdog stops it up to a second later, writing its WAL while the directory is being removed)
    if (svc) await stopped(svc.proc, 20_000)
    if (dir) await fs.rm(dir, { recursive: true, force: true })
  })

  it('answers analytics with data while the backfill of older days is still running', { timeout: 120_000 }, async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'startup-'))
    const t0 = Date.now()
    svc = await startService(dir, { BACKFILL_DAYS: '4', LOG_LEVEL: 'info' })
    // the default MARKET_SOURCE=auto found no venue (the process is offline, test/helpers/no-network.mjs) and says so
    expect(svc.output()).toMatch(/market: {5}SIMULATED data \(the market simulator, not real prices\)\n {14}MARKET_SOURCE=auto: no venue answered within \d+\.\d s \(binance .*\), so the simulator runs/)
    const auth = { authorization: `Bearer ${svc.key}` }
    let data: { candles: unknown[]; exchanges: string[] } = { candles: [], exchanges: [] }
    // asked again and again, as a user would, until the last hour has candles
    await vi.waitFor(async () => {
      const ohlc = await fetch(`${svc!.url}/v1/markets/ohlc?coin=BTC&interval=5m&lookback=1h`, { headers: auth })
      expect(ohlc.status).toBe(200)
      data = ((await ohlc.json()) as { data: typeof data }).data
      expect(data.candles.length).toBeGreaterThan(0)
    }, { timeout: 60_000, interval: 100 })
    expect(data.exchanges).toEqual(['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'])
    expect((await fetch(`${svc.url}/v1/markets/ticker?coin=ETH`, { headers: auth })).status).toBe(200)
    expect(Date.now() - t0).toBeLessThan(60_000)
    // the older days were still being written when those calls were answered
    expect(svc.output()).not.toMatch(/backfill done/)
  })
})
