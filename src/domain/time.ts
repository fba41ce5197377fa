// Time units and bucket alignment: every time is Unix epoch milliseconds, buckets are aligned in UTC.

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

/** the start of ts's bucket of bucketMs (UTC-aligned) */
export const floorTo = (ts: number, bucketMs: number) => Math.floor(ts / bucketMs) * bucketMs

/** the earliest `ts` among the rows of any of the lists, +Infinity for none */
export function earliest(...lists: readonly (readonly { ts: number }[])[]): number {
  let min = Number.POSITIVE_INFINITY
  for (const list of lists) for (const r of list) if (r.ts < min) min = r.ts
  return min
}
