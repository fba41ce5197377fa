// The replay's time model (docs/recordings.md "Time"): sessions, removed silences, the whole-minute shift, speed, loop.
import { describe, expect, it } from 'vitest'
import { ReplayClock } from '../../../src/sources/replay/clock.js'
import { TimeWarp } from '../../../src/sources/replay/warp.js'

const MIN = 60_000
const T = Date.UTC(2025, 4, 1, 10, 0, 0) // a recorded session starts here

describe('TimeWarp', () => {
  it('a contiguous recording is one session kept as recorded: compressed time is recording time', () => {
    const times = [T + 100, T + 20_000, T + 75_000, T + 130_000] // gaps of 20, 55, 55 s: none over 60 s
    const w = new TimeWarp(times, 60_000)
    expect(w.segments).toEqual([{ start: T + 100, end: T + 130_000, offset: 0 }])
    for (const t of [T - 3_600_000, T, T + 50_000, T + 999_999]) expect(w.compress(t)).toBe(t)
    expect([w.first, w.last]).toEqual([T + 100, T + 130_000])
  })

  it('a collage: silences longer than the maximum gap are cut out, the last session keeps its times', () => {
    const a = [T, T + 10_000] // 2019-style old session
    const b = [T + 86_400_000, T + 86_400_000 + 5_000] // a day later
    const c = [T + 400 * 86_400_000, T + 400 * 86_400_000 + 30_000] // over a year later
    const w = new TimeWarp([...a, ...b, ...c], 60_000)
    // by hand: the gap b->c is removed from b, both gaps from a
    const gapBC = c[0]! - b[1]!
    const gapAB = b[0]! - a[1]!
    expect(w.segments.map((s) => s.offset)).toEqual([gapAB + gapBC, gapBC, 0])
    // the sessions now touch: each one starts where the one before ended
    expect(w.compress(b[0]!)).toBe(w.compress(a[1]!))
    expect(w.compress(c[0]!)).toBe(w.compress(b[1]!))
    expect(w.last - w.first).toBe(10_000 + 5_000 + 30_000)
    // a timestamp inside a payload belongs to the session at or after it (data looks back from the line carrying it)
    expect(w.compress(c[0]! - 3_600_000)).toBe(c[0]! - 3_600_000) // an hour before c: c's offset 0
    expect(w.compress(a[0]! - 8 * 3_600_000)).toBe(a[0]! - 8 * 3_600_000 + gapAB + gapBC)
    // recording time back from compressed time: in the session playing then
    expect(w.decompress(w.compress(b[0]! + 2_000))).toBe(b[0]! + 2_000)
    expect(w.decompress(w.compress(c[1]!))).toBe(c[1]!)
  })
})

describe('ReplayClock', () => {
  const times = [T + 12_345, T + 40_000, T + 95_000] // 82.655 s of recording
  const warp = () => new TimeWarp(times, 60_000)

  it('1x: the warp is a constant whole-minute shift, the first line waits for its second of the minute, the last plays at now', () => {
    let wall = Date.UTC(2026, 0, 1, 0, 0, 30, 500)
    const clock = new ReplayClock({ warp: warp(), wall: () => wall, speed: 1, loop: false })
    // by hand: the first line (hh:mm:12.345) next plays at 00:01:12.345 on the wall clock
    expect(clock.shift).toBe(Date.UTC(2026, 0, 1, 0, 1, 12, 345) - (T + 12_345))
    expect(clock.shift % MIN).toBe(0)
    for (const t of times) expect(clock.warped(t, 0)).toBe(t + clock.shift)
    expect(clock.warpedNow()).toBe(wall) // 1x: the warped clock is the wall clock
    wall = clock.warped(T + 95_000, 0) // the last line plays: the recording ends now
    expect(clock.position().compressed).toBe(T + 95_000)
    expect(clock.recordingNow()).toBe(T + 95_000)
    expect(clock.ended()).toBe(false)
    wall += 1
    expect(clock.ended()).toBe(true)
  })

  it('faster: starts at once in the past, runs `speed` times as fast, never ahead of the wall clock, ends within a minute of now', () => {
    let wall = Date.UTC(2026, 0, 1, 0, 0, 30, 500)
    const start = wall
    const clock = new ReplayClock({ warp: warp(), wall: () => wall, speed: 10, loop: false })
    expect(clock.shift % MIN).toBe(0)
    // the first line plays at once
    expect(clock.warpedNow()).toBe(clock.warped(T + 12_345, 0))
    wall += 1_000
    expect(clock.warpedNow() - clock.warped(T + 12_345, 0)).toBe(10_000)
    // the 82.655 s play in 8.2655 s of wall time; the last line is at most a minute old when it plays
    wall = clock.wallAt(clock.warped(T + 95_000, 0))
    expect(wall - start).toBeLessThanOrEqual(8_266)
    expect(clock.warpedNow()).toBe(clock.warped(T + 95_000, 0))
    expect(wall - clock.warpedNow()).toBeGreaterThanOrEqual(0)
    expect(wall - clock.warpedNow()).toBeLessThan(MIN)
    // once caught up it runs with the wall clock
    wall += 3_600_000
    expect(clock.warpedNow()).toBe(wall)
  })

  it('loop: each pass is shifted by one period, a whole number of minutes longer than the recording', () => {
    let wall = Date.UTC(2026, 0, 1, 0, 0, 30, 500)
    const clock = new ReplayClock({ warp: warp(), wall: () => wall, speed: 1, loop: true })
    expect(clock.period).toBe(2 * MIN) // 82.655 s -> 2 min
    wall = clock.warped(T + 40_000, 0)
    expect(clock.position()).toEqual({ pass: 0, compressed: T + 40_000 })
    wall = clock.warped(T + 40_000, 0) + 2 * clock.period
    expect(clock.position()).toEqual({ pass: 2, compressed: T + 40_000 })
    expect(clock.recordingNow()).toBe(T + 40_000)
    expect(clock.warped(T + 40_000, 2)).toBe(wall)
    expect(clock.ended()).toBe(false)
  })

  it('refuses a speed below 1', () => {
    expect(() => new ReplayClock({ warp: warp(), wall: () => 0, speed: 0.5, loop: false })).toThrow(RangeError)
  })
})
