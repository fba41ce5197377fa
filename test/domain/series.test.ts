// Series windows, slots and cursors (src/domain/series.ts), with the expected slots written out by hand.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { canonicalParams, openCursor, sealCursor, type CursorState } from '../../src/domain/cursor.js'
import { parseParams } from '../../src/domain/params.js'
import { pageOf, seriesParams, seriesRules } from '../../src/domain/series.js'
import { ApiError } from '../../src/errors.js'
import { cursorMac } from '../../src/store/cursor-secret.js'

const H = 3_600_000
const NOW = Date.UTC(2026, 2, 2, 12, 0, 30) // 12:00:30 UTC
const schema = z.object(seriesParams()).superRefine(seriesRules)
const D = 24 * H
const scope = { mac: cursorMac(Buffer.from('a test secret of at least thirty-two characters')), endpoint: 'fundingHistory' }
const env = { coins: ['BTC', 'ETH'], now: NOW, cursors: scope }
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
    const c = { s: 1, e: 2, f: 1 }
    expect(openCursor(sealCursor(c, scope, { coin: 'BTC' }), scope, { coin: 'BTC' })).toEqual(c)
    for (const bad of ['x', 'eyJhIjoxfQ', '', '!!!!']) expect(openCursor(bad, scope, {})).toBeNull()
    const next = pageOf(parse({ coin: 'BTC', interval: '1m', limit: '10' }), 60_000, NOW).next!
    expect(refused({ coin: 'ETH', interval: '1m', limit: '10', cursor: next }).extra.parameter).toBe('cursor')
    expect(refused({ coin: 'BTC', interval: '1m', cursor: next.slice(1) }).extra.parameter).toBe('cursor')
    expect(parse({ coin: 'BTC', interval: '1m', limit: '99', cursor: next }).cursor).toBe(next)
  })
})

describe('sealed cursors (issue 31, item 1)', () => {
  const q = { coin: 'BTC', interval: '1m', lookback: '24h', limit: '1' }
  const first = () => pageOf(parse(q), 60_000, NOW).next!
  // the parameters a cursor is bound to, as the parse leaves them (limit and cursor place a page, they are not bound)
  const bound = { coin: 'BTC', interval: '1m', lookback: '24h' }

  it('the window of a real cursor rewritten to 20 years (the old unsigned form and the new one with its code kept) is refused, as is one made up', () => {
    const real = first()
    const [payload, tag] = real.split('.')
    // what it holds: the window and the next page's minute (11:59:30 yesterday → the second whole minute)
    expect(JSON.parse(Buffer.from(payload!, 'base64url').toString())).toEqual([NOW - D, NOW, NOW - D + 30_000 + 60_000])
    const y20 = Buffer.from(JSON.stringify([NOW - 20 * 365 * D, NOW, NOW - 20 * 365 * D])).toString('base64url')
    // what the adversarial run sent: base64 JSON [start, end, next, fingerprint], the fingerprint copied from a real cursor
    const unsigned = Buffer.from(JSON.stringify([NOW - 20 * 365 * D, NOW, NOW - 20 * 365 * D, JSON.stringify(Object.entries({ coin: 'BTC', interval: '1m', lookback: '24h' }))])).toString('base64url')
    for (const cursor of [`${y20}.${tag}`, unsigned, `${y20}.${'A'.repeat(22)}`, `${payload}.${tag!.slice(0, -1)}B`]) {
      const e = refused({ ...q, cursor })
      expect([e.status, e.code, e.extra.parameter]).toEqual([400, 'invalid_parameter', 'cursor'])
    }
  })

  it('a cursor is bound to its endpoint, its parameters and the service secret', () => {
    const real = first()
    const asOther = (over: Partial<typeof env>) => () => parseParams(schema, { ...q, cursor: real }, { ...env, ...over })
    expect(asOther({})).not.toThrow()
    expect(asOther({ cursors: { ...scope, endpoint: 'oiHistory' } })).toThrow(ApiError)
    expect(asOther({ cursors: { mac: cursorMac(Buffer.from('another secret of at least thirty-two chars')), endpoint: 'fundingHistory' } })).toThrow(ApiError)
    // no scope (a parse that does not page): no cursor is accepted
    expect(asOther({ cursors: undefined })).toThrow(ApiError)
    expect(refused({ ...q, interval: '5m', cursor: real }).extra.parameter).toBe('cursor')
    expect(refused({ ...q, lookback: '7d', cursor: real }).extra.parameter).toBe('cursor')
    // limit places a page: it may change
    expect(parse({ ...q, limit: '5000', cursor: real }).cursor).toBe(real)
  })

  it('a correctly sealed cursor still obeys the span rules of the parameters (a leaked secret buys no longer window)', () => {
    const sealed = (c: CursorState, values: Record<string, unknown> = bound) => sealCursor(c, scope, values)
    const ok = sealed({ s: NOW - D, e: NOW, f: NOW - H })
    expect(parse({ ...q, cursor: ok }).cursor).toBe(ok)
    const outside: [string, CursorState, Record<string, unknown>?][] = [
      ['20 years', { s: NOW - 20 * 365 * D, e: NOW, f: NOW - 20 * 365 * D }],
      ['longer than the lookback', { s: NOW - 2 * D, e: NOW, f: NOW - H }],
      ['ending beyond a day ahead', { s: NOW + D, e: NOW + 2 * D, f: NOW + D }],
      ['empty', { s: NOW, e: NOW, f: NOW }],
      ['before 2009', { s: 1_000, e: 1_000 + D, f: 1_000 }],
      ['position before the window', { s: NOW - D, e: NOW, f: NOW - 2 * D }],
      ['position at the end', { s: NOW - D, e: NOW, f: NOW }],
      ['negative position', { s: NOW - D, e: NOW, f: -1 }],
    ]
    for (const [why, c] of outside) {
      const e = refused({ ...q, cursor: sealed(c) })
      expect([why, e.code, e.extra.parameter]).toEqual([why, 'invalid_parameter', 'cursor'])
    }
    // start_time/end_time: the cursor's window is exactly theirs; 366 days at most
    const S = NOW - 300 * D
    const fixed = { coin: 'BTC', interval: '1h', start_time: S, end_time: S + 10 * D }
    const fq = { coin: 'BTC', interval: '1h', start_time: String(S), end_time: String(S + 10 * D) }
    expect(parse({ ...fq, cursor: sealed({ s: S, e: S + 10 * D, f: S + H }, fixed) }).cursor).toBeDefined()
    expect(refused({ ...fq, cursor: sealed({ s: S - D, e: S + 10 * D, f: S + H }, fixed) }).extra.parameter).toBe('cursor')
    expect(refused({ ...fq, cursor: sealed({ s: S, e: S + 11 * D, f: S + H }, fixed) }).extra.parameter).toBe('cursor')
    const open = { coin: 'BTC', interval: '1h', start_time: NOW - 400 * D }
    expect(refused({ coin: 'BTC', interval: '1h', start_time: String(NOW - 400 * D), cursor: sealed({ s: NOW - 400 * D, e: NOW, f: NOW - H }, open) }).extra.parameter).toBe('cursor')
  })

  it('the parameters a cursor is bound to are the ones that choose the data, in one canonical form', () => {
    expect(canonicalParams({ limit: 5, cursor: 'x', lookback: undefined, interval: '1m', coin: 'BTC' })).toBe('[["coin","BTC"],["interval","1m"]]')
  })
})
