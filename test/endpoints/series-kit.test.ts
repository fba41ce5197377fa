// onPage (src/endpoints/series-kit.ts): a page is exactly the points at its slots, and the same array for the same
// points on the page, whatever the millisecond the window was asked at (what lets REST reuse a page's JSON).
import { describe, expect, it } from 'vitest'
import { HOUR_MS } from '../../src/domain/time.js'
import { onPage } from '../../src/endpoints/series-kit.js'

const page = (from: number, to: number) => ({ start: from, end: to, intervalMs: HOUR_MS, from, to, slots: [], next: null })
const T0 = Date.UTC(2026, 10, 1)

describe('onPage', () => {
  const points = Array.from({ length: 720 }, (_, i) => ({ ts: T0 + i * HOUR_MS, v: i }))

  it('is the points in [from, to), as a filter gives them', () => {
    for (const [from, to] of [[T0, T0 + 720 * HOUR_MS], [T0 + 5.5 * HOUR_MS, T0 + 100 * HOUR_MS + 1], [T0 - HOUR_MS, T0 + 3 * HOUR_MS], [T0 + 800 * HOUR_MS, T0 + 900 * HOUR_MS]] as const)
      expect(onPage(points, page(from, to))).toEqual(points.filter((p) => p.ts >= from && p.ts < to))
  })

  it('gives the same array for the same points, asked at different milliseconds; the whole array when all are on it', () => {
    const a = onPage(points, page(T0 + 10 * HOUR_MS - 7, T0 + 50 * HOUR_MS + 3))
    const b = onPage(points, page(T0 + 10 * HOUR_MS - 1234, T0 + 50 * HOUR_MS + 999))
    expect(b).toBe(a)
    expect(a).toHaveLength(41)
    expect(onPage(points, page(T0 - 5, T0 + 720 * HOUR_MS + 17))).toBe(points)
    expect(onPage(points, page(T0 + 11 * HOUR_MS, T0 + 50 * HOUR_MS + 3))).not.toBe(a)
  })

  it('filters points out of time order as they are', () => {
    const shuffled = [points[3]!, points[1]!, points[7]!, points[2]!]
    expect(onPage(shuffled, page(points[2]!.ts, points[7]!.ts))).toEqual([points[3]!, points[2]!])
  })
})
