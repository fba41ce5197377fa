// The dashboard's time arithmetic, in Node (format.js touches no DOM when imported): a date and time typed in
// a zone becomes the right Unix ms, across daylight-saving changes; durations read as people say them.
import { describe, expect, it } from 'vitest'

// a browser module without type declarations: typed here by what the test uses
const { fmtDuration, fmtRelative, wallTimeToMs } = (await import('../../src/dashboard/public/format.js' as string)) as {
  fmtDuration(ms: number): string
  fmtRelative(ms: number | null, reference: number): string
  wallTimeToMs(value: string, tz: string): number | null
}

describe('wallTimeToMs', () => {
  it('reads the wall time in the given zone', () => {
    // Kolkata is UTC+5:30 all year
    expect(wallTimeToMs('2026-03-02T17:30', 'Asia/Kolkata')).toBe(Date.UTC(2026, 2, 2, 12, 0))
    expect(wallTimeToMs('2026-03-02T12:00', 'UTC')).toBe(Date.UTC(2026, 2, 2, 12, 0))
    expect(wallTimeToMs('2026-03-02T12:00:45', 'UTC')).toBe(Date.UTC(2026, 2, 2, 12, 0, 45))
  })

  it('follows daylight saving: New York is UTC-5 in winter and UTC-4 in summer', () => {
    expect(wallTimeToMs('2026-01-15T09:30', 'America/New_York')).toBe(Date.UTC(2026, 0, 15, 14, 30))
    expect(wallTimeToMs('2026-07-15T09:30', 'America/New_York')).toBe(Date.UTC(2026, 6, 15, 13, 30))
    // the night of the change (8 March 2026, 02:00 EST → 03:00 EDT): 03:30 exists only as EDT
    expect(wallTimeToMs('2026-03-08T03:30', 'America/New_York')).toBe(Date.UTC(2026, 2, 8, 7, 30))
    expect(wallTimeToMs('2026-03-08T01:30', 'America/New_York')).toBe(Date.UTC(2026, 2, 8, 6, 30))
  })

  it('refuses what is not a date and time', () => {
    for (const bad of ['', '2026-03-02', '17:30', 'yesterday', '2026-03-02 17:30']) expect(wallTimeToMs(bad, 'UTC'), bad).toBeNull()
  })
})

describe('durations', () => {
  it('keeps the two largest units', () => {
    expect(fmtDuration(0)).toBe('0 s')
    expect(fmtDuration(45_000)).toBe('45 s')
    expect(fmtDuration(5 * 60_000 + 3_000)).toBe('5 min 3 s')
    expect(fmtDuration(3 * 3_600_000 + 59 * 60_000 + 30_000)).toBe('3 h 59 min')
    expect(fmtDuration(2 * 86_400_000 + 3_600_000 + 1_000)).toBe('2 d 1 h')
  })

  it('counts from the reference instant (the answer’s as_of), not the client clock', () => {
    const asOf = Date.UTC(2026, 2, 2, 12, 0, 30)
    expect(fmtRelative(Date.UTC(2026, 2, 2, 16, 0), asOf)).toBe('in 3 h 59 min')
    expect(fmtRelative(asOf - 5_000, asOf)).toBe('5 s ago')
    expect(fmtRelative(asOf, asOf)).toBe('now')
    expect(fmtRelative(null, asOf)).toBe('–')
  })
})
