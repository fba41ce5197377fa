// Series windows, slots and cursors (src/domain/series.ts), with the expected slots written out by hand.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { parseParams } from '../../src/domain/params.js'
import { cursorKey, decodeCursor, encodeCursor, pageOf, seriesParams, seriesRules } from '../../src/domain/series.js'
import { ApiError } from '../../src/errors.js'

const H = 3_600_000
const NOW = Date.UTC(2026, 2, 2, 12, 0, 30) // 12:00:30 UTC
const schema = z.object(seriesParams()).superRefine(seriesRules)
const env = { coins: ['BTC', 'ETH'], now: NOW }
const parse = (q: Record<string, string>) => parseParams(schema, q, env)
const refused = (q: Record<string, string>): ApiError => {
  try {
    parse(q)
  } catch (e) {
    return e as ApiError
  }
  throw new Error(`accepted ${JSON.stringify(q)}`)
}

describe('series parameters', () => {
  it('defaults: 1h points over the last 24 h, limit 500', () => {
    const v = parse({ coin: 'btc' })
    expect(v).toMatchObject({ coin: 'BTC', interval: '1h', limit: 500 })
    const p = pageOf(v, H, NOW)
    expect([p.start, p.end]).toEqual([NOW - 24 * H, NOW])
    // 12:00:30 yesterday → first whole hour 13:00; last slot 12:00 today (in progress)
    expect(p.slots[0]).toBe(Date.UTC(2026, 2, 1, 13))
    expect(p.slots.at(-1)).toBe(Date.UTC(2026, 2, 2, 12))
    expect(p.slots).toHaveLength(24)
    expect(p.next).toBeNull()
  })

  it('start_time/end_time instead of lookback; both together, an empty window or a too long interval are refused', () => {
    const v = parse({ coin: 'ETH', interval: '4h', start_time: String(Date.UTC(2026, 2, 1)), end_time: String(Date.UTC(2026, 2, 2)) })
    expect(pageOf(v, 4 * H, NOW).slots).toEqual([0, 4, 8, 12, 16, 20].map((h) => Date.UTC(2026, 2, 1, h)))
    expect(refused({ coin: 'ETH', lookback: '4h', start_time: String(NOW - H) }).extra.parameter).toBe('lookback')
    expect(refused({ coin: 'ETH', start_time: String(NOW - H), end_time: String(NOW - 2 * H) }).extra.parameter).toBe('start_time')
    const long = refused({ coin: 'ETH', interval: '1d', lookback: '4h' })
    expect(long.extra.parameter).toBe('interval')
    expect(long.extra.allowed).toEqual(['1m', '5m', '15m', '1h', '4h'])
    expect(refused({ coin: 'ETH', limit: '5001' }).extra.parameter).toBe('limit')
  })

  it('pages of limit slots join up to the whole window; the cursor fixes the window while the clock moves', () => {
    const q = { coin: 'BTC', interval: '1m', lookback: '1h', limit: '25' }
    const all: number[] = []
    let p = pageOf(parse(q), 60_000, NOW)
    all.push(...p.slots)
    let later = NOW
    while (p.next) {
      later += 45_000
      p = pageOf(parseParams(schema, { ...q, cursor: p.next }, { ...env, now: later }), 60_000, later)
      expect([p.start, p.end]).toEqual([NOW - H, NOW])
      expect(p.slots.length).toBeLessThanOrEqual(25)
      all.push(...p.slots)
    }
    // 11:00:30 → 12:00:30: minutes 11:01 … 12:00
    expect(all).toEqual(Array.from({ length: 60 }, (_, i) => NOW - H + 30_000 + i * 60_000))
  })

  it('cursors: round trip; another coin, an edited or a foreign string is refused on cursor', () => {
    const c = { s: 1, e: 2, f: 1, k: cursorKey({ coin: 'BTC' }) }
    expect(decodeCursor(encodeCursor(c))).toEqual(c)
    for (const bad of ['x', 'eyJhIjoxfQ', '', '!!!!']) expect(decodeCursor(bad)).toBeNull()
    const next = pageOf(parse({ coin: 'BTC', interval: '1m', limit: '10' }), 60_000, NOW).next!
    expect(refused({ coin: 'ETH', interval: '1m', limit: '10', cursor: next }).extra.parameter).toBe('cursor')
    expect(refused({ coin: 'BTC', interval: '1m', cursor: next.slice(1) }).extra.parameter).toBe('cursor')
    expect(parse({ coin: 'BTC', interval: '1m', limit: '99', cursor: next }).cursor).toBe(next)
  })
})
