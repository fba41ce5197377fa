// The pieces the Bybit, OKX, Hyperliquid and dYdX fetchers share: what a newest-first or oldest-first page covers
// for sure, each settlement's interval from the spacing of the settlements, and how each venue's answers say "stop".
import { describe, expect, it } from 'vitest'
import { newestFirstFrom, oldestFirstTo, settlementIntervals, SETTLEMENT_GAP_MS } from '../../../src/sources/history/venue-call.js'
import { bybitStopRule, dydxStopRule, okxStopRule } from '../../../src/sources/history/venue-stops.js'

const MIN = 60_000
const H = 3_600_000
const T = Date.UTC(2026, 10, 1)

describe('page coverage', () => {
  it('a newest-first page short of its limit covers its whole span; a full one only from its oldest row when a row could lie before it', () => {
    const req = { from: T }
    // 1 000 minutes asked, 1 000 rows from the span's first minute: whole
    const full = Array.from({ length: 1000 }, (_, i) => T + i * MIN)
    expect(newestFirstFrom(req, full, 1000, MIN)).toBe(T)
    // the venue stopped at 300 of them (its real page size): the 300 newest, the rest asked again
    const cut = full.slice(700)
    expect(newestFirstFrom(req, cut, 300, MIN)).toBe(T + 700 * MIN)
    // fewer rows than the limit: nothing was cut (the gap is the venue's)
    expect(newestFirstFrom(req, cut, 1000, MIN)).toBe(T)
    // full, but its oldest row is less than a step after the start: nothing older fits in the span
    expect(newestFirstFrom({ from: T - 2 * MIN }, full, 1000, 5 * MIN)).toBe(T - 2 * MIN)
    // settlements a second or so after the hour: the step is the least gap between two of them
    expect(newestFirstFrom({ from: T }, [T + H + 400, T + 2 * H + 100], 2, SETTLEMENT_GAP_MS)).toBe(T + H + 400)
    expect(newestFirstFrom({ from: T + 2 * MIN }, [T + H + 400, T + 2 * H + 100], 2, SETTLEMENT_GAP_MS)).toBe(T + 2 * MIN)
  })

  it('an oldest-first page that came back at its cap covers up to its newest row', () => {
    const rows = Array.from({ length: 500 }, (_, i) => T + i * MIN)
    expect(oldestFirstTo({ to: T + 5000 * MIN }, rows, 500, MIN)).toBe(T + 500 * MIN)
    expect(oldestFirstTo({ to: T + 5000 * MIN }, rows.slice(1), 500, MIN)).toBe(T + 5000 * MIN)
    expect(oldestFirstTo({ to: T + 500 * MIN }, rows, 500, MIN)).toBe(T + 500 * MIN)
  })
})

describe('settlement intervals', () => {
  it("each settlement covers the time since the one before; the oldest the gap to the next; a lone one the venue's stated interval", () => {
    // Hyperliquid's funding_history.json of May 2023: settlements 8 h apart, stamped some ms after the hour
    expect(settlementIntervals([1683849600048, 1683878400388, 1683907200253], 1)).toEqual([8, 8, 8])
    // a market moved from 8 h to 4 h (Bybit and OKX do so for volatile markets)
    expect(settlementIntervals([T, T + 8 * H, T + 16 * H, T + 20 * H, T + 24 * H], 4)).toEqual([8, 8, 8, 4, 4])
    expect(settlementIntervals([T], 4)).toEqual([4])
    // a gap that is no whole number of hours up to 8 (a missing day of rows): the stated interval
    expect(settlementIntervals([T, T + 24 * H, T + 25 * H], 1)).toEqual([1, 1, 1])
    expect(settlementIntervals([T, T + 90 * MIN], 8)).toEqual([8, 8])
  })
})

describe('stop rules', () => {
  const now = T
  it('Bybit: 403 "access too frequent" is the 10-minute IP ban, any other 403 a refusal; retCode 10006 until X-Bapi-Limit-Reset-Timestamp', () => {
    expect(bybitStopRule(403, {}, '403, access too frequent', now)).toEqual({ until: now + 10 * MIN, kind: 'banned' })
    expect(bybitStopRule(403, {}, '<html>The Amazon CloudFront distribution is configured to block access from your country.</html>', now)).toBeNull()
    expect(bybitStopRule(200, { 'X-Bapi-Limit-Reset-Timestamp': String(now + 1500) }, '{"retCode":10006,"retMsg":"Too many visits!","result":{}}', now)).toEqual({ until: now + 1500, kind: 'rate_limited' })
    expect(bybitStopRule(200, {}, '{"retCode":10006,"retMsg":"Too many visits!"}', now)).toEqual({ until: now + 1000, kind: 'rate_limited' })
    expect(bybitStopRule(200, {}, '{"retCode":0,"retMsg":"OK"}', now)).toBeNull()
    expect(bybitStopRule(429, { 'retry-after': '3' }, '', now)).toEqual({ until: now + 3000, kind: 'rate_limited' })
  })

  it('OKX: 429 or code 50011 waits Retry-After, else one 2-second window', () => {
    expect(okxStopRule(429, {}, '{"msg":"Too Many Requests","code":"50011"}', now)).toEqual({ until: now + 2000, kind: 'rate_limited' })
    expect(okxStopRule(200, {}, '{"msg":"Rate limit reached.","code":"50011","data":[]}', now)).toEqual({ until: now + 2000, kind: 'rate_limited' })
    expect(okxStopRule(429, { 'Retry-After': '5' }, '', now)).toEqual({ until: now + 5000, kind: 'rate_limited' })
    expect(okxStopRule(200, {}, '{"code":"0","data":[]}', now)).toBeNull()
  })

  it('dYdX: 429 waits Retry-After, else RateLimit-Reset (seconds from now, or an epoch), else 10 seconds', () => {
    expect(dydxStopRule(429, { 'retry-after': '4' }, '', now)).toEqual({ until: now + 4000, kind: 'rate_limited' })
    expect(dydxStopRule(429, { 'RateLimit-Reset': '7' }, '', now)).toEqual({ until: now + 7000, kind: 'rate_limited' })
    expect(dydxStopRule(429, { 'RateLimit-Reset': String(now + 3000) }, '', now)).toEqual({ until: now + 3000, kind: 'rate_limited' })
    expect(dydxStopRule(429, {}, '', now)).toEqual({ until: now + 10_000, kind: 'rate_limited' })
    expect(dydxStopRule(500, {}, '', now)).toBeNull()
  })
})
