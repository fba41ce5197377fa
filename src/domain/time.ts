// Time units and bucket alignment: every time is Unix epoch milliseconds, buckets are aligned in UTC.

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

/** the start of ts's bucket of bucketMs (UTC-aligned) */
export const floorTo = (ts: number, bucketMs: number) => Math.floor(ts / bucketMs) * bucketMs
