// The backfill CLI's flags (node:util parseArgs), each checked here so an error names the flag the caller typed,
// never the environment variable behind its default.
import { parseArgs } from 'node:util'

export const BACKFILL_USAGE = `usage: npm run backfill -- [--days N] [--seed S]
  --days N   days of 1-minute history to have, ending now (0 < N <= 365, fractions allowed; default BACKFILL_DAYS, 30)
  --seed S   simulator seed, a whole number (default SIM_SEED, 42)`

export type BackfillArgs = { help: true } | { help: false; days?: number; seed?: number }

export class UsageError extends Error {}

export function parseBackfillArgs(argv: readonly string[]): BackfillArgs {
  let values
  try {
    ;({ values } = parseArgs({ args: [...argv], options: { days: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }))
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${BACKFILL_USAGE}`)
  }
  if (values.help) return { help: true }
  const out: BackfillArgs = { help: false }
  if (values.days !== undefined) {
    const days = Number(values.days)
    if (values.days.trim() === '' || !Number.isFinite(days) || days <= 0 || days > 365)
      throw new UsageError(`--days must be a number of days above 0 and at most 365 (e.g. --days 7), not "${values.days}"`)
    out.days = days
  }
  if (values.seed !== undefined) {
    const seed = Number(values.seed)
    if (!/^\d+$/.test(values.seed.trim()) || !Number.isSafeInteger(seed)) throw new UsageError(`--seed must be a whole number (e.g. --seed 42), not "${values.seed}"`)
    out.seed = seed
  }
  return out
}
