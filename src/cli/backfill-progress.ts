// What the backfill CLI tells its user: the plan in days (the span asked for, not the number of pieces it is cut
// into at UTC midnight), then progress — a bar on a terminal, plain lines at most every few seconds otherwise
// (a log file, CI, a pipe), so a long run is never silent.
import { Presets, SingleBar } from 'cli-progress'
import type { BackfillChunk, BackfillProgress } from '../ingest/backfill.js'
import { DAY_MS } from '../domain/time.js'

const days = (ms: number) => {
  const d = ms / DAY_MS
  return `${Number.isInteger(d) ? d : d.toFixed(2)} day${d === 1 ? '' : 's'}`
}

/** "2 days of history to write, in 3 pieces (split at UTC midnight)" */
export function describePlan(chunks: readonly BackfillChunk[]): string {
  if (!chunks.length) return 'nothing to do: the history is complete'
  const span = chunks.reduce((s, c) => s + (c.to - c.from), 0)
  return `${days(span)} of history to write, in ${chunks.length} piece${chunks.length === 1 ? '' : 's'} (split at UTC midnight, newest first)`
}

export interface ProgressOut {
  isTTY?: boolean
  write(text: string): unknown
}

export interface BackfillReporter {
  update(p: BackfillProgress): void
  stop(): void
}

/** a bar on a terminal; elsewhere one plain line per `everyMs` at most, and always the last */
export function backfillReporter(chunks: readonly BackfillChunk[], out: ProgressOut, opts: { everyMs?: number; now?: () => number } = {}): BackfillReporter {
  const total = chunks.reduce((s, c) => s + (c.to - c.from), 0)
  const spanOf = new Map(chunks.map((c) => [c.from, c.to - c.from]))
  const now = opts.now ?? Date.now
  const t0 = now()
  let done = 0
  if (out.isTTY) {
    const bar = new SingleBar(
      { format: 'backfill |{bar}| {percentage}% | {doneDays}/{totalDays} | {bars} bars | {day} | ETA {eta_formatted}', hideCursor: true, stream: out as NodeJS.WritableStream },
      Presets.shades_classic,
    )
    bar.start(total, 0, { bars: 0, day: '', doneDays: days(0), totalDays: days(total) })
    return {
      update(p) {
        done += spanOf.get(p.from) ?? p.to - p.from
        bar.update(done, { bars: p.bars, day: new Date(p.from).toISOString().slice(0, 10), doneDays: days(done) })
      },
      stop: () => bar.stop(),
    }
  }
  const every = opts.everyMs ?? 5000
  let last = -Infinity
  return {
    update(p) {
      done += spanOf.get(p.from) ?? p.to - p.from
      const t = now()
      if (p.chunk < p.chunks && t - last < every) return
      last = t
      const pct = total ? Math.round((done / total) * 100) : 100
      out.write(
        `backfill: ${pct}% (${days(done)} of ${days(total)}), piece ${p.chunk}/${p.chunks} ${new Date(p.from).toISOString().slice(0, 10)}, ${p.bars} bars, ${((t - t0) / 1000).toFixed(0)} s\n`,
      )
    },
    stop() {},
  }
}
