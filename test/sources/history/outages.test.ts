// When a venue's feed was out, and what gap repair is asked for (src/sources/history/outages.ts).
import { describe, expect, it } from 'vitest'
import { watchOutages } from '../../../src/sources/history/outages.js'
import type { ConnectorHealth } from '../../../src/sources/connectors/connector-options.js'

const MIN = 60_000
const until = async (cond: () => boolean) => {
  for (let i = 0; i < 400 && !cond(); i++) await new Promise((r) => setTimeout(r, 5))
  expect(cond()).toBe(true)
}

describe('outage watch', () => {
  it('a stream or poll failing, then back: one repair from a minute before the outage; quiet positioning failures do not count as an outage', async () => {
    let now = 10 * MIN
    const h: ConnectorHealth = { exchange: 'binance', lastEventAt: now, connected: true, errors: 0, failing: [], refused: null }
    const repairs: number[] = []
    let checks = 0
    const stop = watchOutages({ health: () => (checks++, { ...h, lastEventAt: now }), now: () => now, repair: (from) => repairs.push(from), everyMs: 5, delayMs: 5 })
    /** the watch has looked at the health twice more (not a fixed sleep: a loaded machine runs its timers late) */
    const looked = async () => {
      const from = checks
      await until(() => checks >= from + 2)
    }
    await looked()
    // a positioning poll failing is no outage of the market data (its errors are a blip, repaired over the last check)
    h.failing = ['positioning']
    await looked()
    expect(repairs).toEqual([])
    h.failing = ['trades:BTC/USDT:USDT']
    h.errors = 3
    await looked()
    const outageSeenBy = now
    now += 20 * MIN
    await looked()
    expect(repairs).toEqual([])
    h.failing = []
    await until(() => repairs.length === 1)
    expect(repairs[0]).toBe(outageSeenBy - MIN)
    // a blip between two checks (a loop failed and recovered at once)
    h.errors = 4
    await until(() => repairs.length === 2)
    expect(repairs[1]).toBe(now - MIN)
    stop()
  })
})
