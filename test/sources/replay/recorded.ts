// The fixture recording's raw lines, for tests that derive figures from the venue payloads themselves, and the warp
// docs/recordings.md states (sessions, cut silences, whole-minute shift) that moves a recorded time onto the replay's
// time line. Not a test file.
import { readFileSync } from 'node:fs'
import { expect } from 'vitest'
import { FIXTURES_RECORDING } from './helpers.js'

/** REPLAY_MAX_GAP_MS's default: longer silences between lines are cut out */
const MAX_GAP_MS = 60_000

export interface Line { venue?: string; at: number; kind: string; url?: string; body?: string; frame?: string; source?: string }
export const LINES: Line[] = readFileSync(FIXTURES_RECORDING, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line)

/** the parsed payloads of the lines copied from one source file, in file order */
export const payloads = <T = any>(source: string): T[] => LINES.filter((l) => l.source === source).map((l) => JSON.parse(l.body ?? l.frame!) as T)

/** the one payload copied from a source file */
export const one = <T = any>(source: string): T => {
  const p = payloads<T>(source)
  expect(p, source).toHaveLength(1)
  return p[0]!
}

/** sessions of the recording: lines closer than MAX_GAP_MS; each moves later by the silences cut after it */
function sessions(): Array<{ end: number; offset: number }> {
  const segs: Array<{ start: number; end: number }> = []
  for (const { at } of LINES) {
    const cur = segs.at(-1)
    if (cur && at - cur.end <= MAX_GAP_MS) cur.end = Math.max(cur.end, at)
    else segs.push({ start: at, end: at })
  }
  return segs.map((s, k) => ({ end: s.end, offset: segs.slice(k + 1).reduce((a, n, i) => a + n.start - segs[k + i]!.end, 0) }))
}

/** a recorded (venue) time on the replay's time line, for a replay whose clock shifted by `shift`: moved with the first session ending at or after it */
export function warpOf(shift: number): (t: number) => number {
  const segs = sessions()
  return (t) => t + (segs.find((g) => g.end >= t) ?? segs.at(-1)!).offset + shift
}
