// The hot series written to bytes at shutdown and restored at the next start (src/read/series-snapshot.ts,
// CoinSeries.snapshot/restore): a restored series answers every read exactly as the series it was written from, and
// bytes that are not such a snapshot (damaged, cut short, another format, other retentions) change nothing.
import { describe, expect, it } from 'vitest'
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../../src/domain/time.js'
import { CoinSeries } from '../../src/read/series.js'
import { decodeSeries } from '../../src/read/series-snapshot.js'
import { reads, writes } from '../helpers/series.js'

const NOW = Date.UTC(2026, 10, 20, 12, 30)

/** a series that loaded (covers its retention) and then took random writes in both grids */
function written(seed: number): CoinSeries {
  const series = new CoinSeries()
  const hours = writes(seed, HOUR_MS, 30 * 24, NOW)
  const minutes = writes(seed + 1, MINUTE_MS, 24 * 60, NOW)
  series.hours.coveredFrom = floorTo(NOW - series.retentionMs, HOUR_MS)
  series.minutes.coveredFrom = floorTo(NOW - series.minuteRetentionMs, MINUTE_MS)
  for (let i = 0; i < hours.bars.length; i += 100) series.apply({ hourBars: hours.bars.slice(i, i + 100) }, NOW)
  for (let i = 0; i < minutes.bars.length; i += 100) series.apply({ minuteBars: minutes.bars.slice(i, i + 100) }, NOW)
  series.apply({ samples: hours.samples }, NOW)
  series.apply({ samples: minutes.samples }, NOW)
  return series
}

describe('CoinSeries.snapshot and restore', () => {
  it('restores a series that answers every read as the one it was written from', () => {
    const original = written(1)
    const bytes = original.snapshot()!
    expect(bytes).not.toBeNull()
    const restored = new CoinSeries()
    const version = restored.version
    expect(restored.restore(bytes, NOW)).toBe(true)
    expect(restored.version).toBeGreaterThan(version)
    const expected = reads(original, NOW)
    expect(reads(restored, NOW)).toEqual(expected)
    // the reads are not trivially empty
    expect(JSON.stringify(expected).length).toBeGreaterThan(100_000)
    // and the restored series goes on taking writes like the original
    const more = writes(9, MINUTE_MS, 30, NOW + 10 * MINUTE_MS)
    original.apply({ minuteBars: more.bars, samples: more.samples }, NOW + 10 * MINUTE_MS)
    restored.apply({ minuteBars: more.bars, samples: more.samples }, NOW + 10 * MINUTE_MS)
    expect(reads(restored, NOW + 10 * MINUTE_MS)).toEqual(reads(original, NOW + 10 * MINUTE_MS))
  })

  it('restored later, no longer covers what the store has dropped meanwhile', () => {
    const original = written(2)
    // the hour after NOW + 2 days: the retention then starts on an hour, where load() would start reading
    const later = NOW + 2 * DAY_MS + 30 * MINUTE_MS
    const restored = new CoinSeries()
    expect(restored.restore(original.snapshot()!, later)).toBe(true)
    original.prune(later)
    expect(reads(restored, later)).toEqual(reads(original, later))
    expect(restored.hours.covers(NOW - 29.5 * DAY_MS, later)).toBe(false)
    expect(restored.hours.covers(later - 28 * DAY_MS, later)).toBe(true)
    expect(restored.minutes.covers(NOW - 2 * HOUR_MS, later)).toBe(false)
  })

  it('reads bytes that do not start on an 8-byte boundary (a copy), and refuses every kind of wrong bytes, leaving the series as it was', () => {
    const bytes = written(3).snapshot()!
    const shifted = new Uint8Array(bytes.length + 4)
    shifted.set(bytes, 4)
    const restored = new CoinSeries()
    expect(restored.restore(shifted.subarray(4), NOW)).toBe(true)
    expect(reads(restored, NOW)).toEqual(reads(written(3), NOW))

    const damaged = Uint8Array.from(bytes)
    damaged[Math.floor(bytes.length / 2)]! ^= 0x40
    const format = Uint8Array.from(bytes)
    format[12] = 1 // the format number, after the 12-byte magic: 1, the format before bar tracks kept provenance
    const wrong: [string, Uint8Array][] = [
      ['damaged', damaged],
      ['cut short', bytes.subarray(0, bytes.length - 1000)],
      ['another format', format],
      ['not a snapshot', new TextEncoder().encode('{"hello":"world"}')],
      ['empty', new Uint8Array(0)],
    ]
    for (const [what, b] of wrong) {
      expect(decodeSeries(b), what).toBeNull()
      const s = written(4)
      const before = reads(s, NOW)
      expect(s.restore(b, NOW), what).toBe(false)
      expect(reads(s, NOW), what).toEqual(before)
    }
    // another retention: the rings would be of another size
    expect(new CoinSeries(7 * DAY_MS).restore(bytes, NOW)).toBe(false)
    // a series that never loaded covers nothing: there is nothing to restore from it
    expect(new CoinSeries().restore(new CoinSeries().snapshot()!, NOW)).toBe(false)
  })
})
