// The backfill CLI (issue 15, item 10): the plan is announced in the days asked for (not in pieces called days),
// a bad flag is named as the flag, and without a terminal the progress comes as plain lines.
import { spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parseBackfillArgs, UsageError } from '../../src/cli/backfill-args.js'
import { backfillReporter, describePlan } from '../../src/cli/backfill-progress.js'
import type { BackfillChunk } from '../../src/ingest/backfill.js'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
const DAY = 86_400_000

/** run the CLI with stdout a pipe (not a terminal); stop it once `until` matches its output, if given */
function runCli(args: string[], env: Record<string, string>, until?: RegExp): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli/backfill.ts', ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    proc.stdout.on('data', (d: Buffer) => {
      stdout += d.toString()
      if (until?.test(stdout)) proc.kill('SIGKILL')
    })
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    proc.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('npm run backfill', () => {
  const dirs: string[] = []
  afterAll(async () => Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true }))))

  it.each([
    [['--days', 'abc'], /--days must be a number/],
    [['--days', '0'], /--days must be a number/],
    [['--days', '400'], /--days must be a number/],
    [['--seed', 'x1'], /--seed must be a whole number/],
  ])('%j: exit 2 with a message naming the flag, not an environment variable', async (args, message) => {
    const r = await runCli(args, { DATA_DIR: path.join(os.tmpdir(), 'never-created') })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(message)
    expect(r.stderr).not.toMatch(/BACKFILL_DAYS|SIM_SEED|invalid configuration/)
  }, 60_000)

  it('--days 2 with stdout not a terminal: announces 2 days (in the UTC-day pieces the window touches) and prints plain progress lines', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'backfill-cli-'))
    dirs.push(dir)
    const before = Date.now()
    const r = await runCli(['--days', '2', '--seed', '5'], { DATA_DIR: dir }, /backfill: \d+% \(/)
    // a window of 2 days ending at the CLI's start (floored to its minute) touches 3 UTC days, 2 when that minute is
    // midnight itself; the CLI started between `before` and now
    const [first, last] = [before, Date.now()].map((t) => Math.floor(t / 60_000) * 60_000) as [number, number]
    const midnight = Math.ceil(first / DAY) * DAY
    const pieces = [...(midnight <= last ? [2] : []), ...(first !== last || first !== midnight ? [3] : [])]
    const lines = r.stdout.split('\n')
    expect(pieces.map((n) => `backfill: 2 days of history to write, in ${n} pieces (split at UTC midnight, newest first)`)).toContain(lines[0])
    const n = Number(/in (\d) pieces/.exec(lines[0]!)![1])
    expect(r.stdout).toMatch(new RegExp(`^backfill: \\d+% \\([\\d.]+ days? of 2 days\\), piece 1/${n} \\d{4}-\\d{2}-\\d{2}, \\d+ bars, \\d+ s$`, 'm'))
    expect(r.stdout).not.toMatch(/\b3 day/)
  }, 120_000)
})

describe('the plan and the progress lines', () => {
  const chunk = (from: number, to: number): BackfillChunk => ({ from, to, wholeDay: to - from === DAY, fresh: true, resume: false })
  const t = Date.UTC(2026, 0, 10, 6) // 06:00 UTC
  // 1.5 days ending at 06:00: 06:00–24:00 of day 8 is not asked; 12:00 of day 8 → 06:00 day 10
  const chunks = [chunk(Date.UTC(2026, 0, 10), t), chunk(Date.UTC(2026, 0, 9), Date.UTC(2026, 0, 10)), chunk(Date.UTC(2026, 0, 8, 18), Date.UTC(2026, 0, 9))]

  it('describes the span in days, and the pieces as pieces', () => {
    expect(describePlan(chunks)).toBe('1.50 days of history to write, in 3 pieces (split at UTC midnight, newest first)')
    expect(describePlan([])).toBe('nothing to do: the history is complete')
  })

  it('without a terminal: a line at most every 5 s, and always the last one', () => {
    const written: string[] = []
    let clock = 0
    const r = backfillReporter(chunks, { isTTY: false, write: (s) => written.push(s) }, { now: () => clock })
    clock = 1000
    r.update({ chunk: 1, chunks: 3, from: chunks[0]!.from, to: chunks[0]!.to, bars: 100 })
    clock = 2000
    r.update({ chunk: 2, chunks: 3, from: chunks[1]!.from, to: chunks[1]!.to, bars: 500 })
    clock = 2500
    r.update({ chunk: 3, chunks: 3, from: chunks[2]!.from, to: chunks[2]!.to, bars: 600 })
    expect(written).toEqual([
      // 6 h of 36 h
      'backfill: 17% (0.25 days of 1.50 days), piece 1/3 2026-01-10, 100 bars, 1 s\n',
      'backfill: 100% (1.50 days of 1.50 days), piece 3/3 2026-01-08, 600 bars, 3 s\n',
    ])
  })

  it('flag parsing: the values, and errors as UsageError', () => {
    expect(parseBackfillArgs(['--days', '0.5', '--seed', '7'])).toEqual({ help: false, days: 0.5, seed: 7 })
    expect(parseBackfillArgs(['-h'])).toEqual({ help: true })
    expect(() => parseBackfillArgs(['--dayz', '2'])).toThrow(UsageError)
  })
})
