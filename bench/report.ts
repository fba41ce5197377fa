// What every bench step reports, and the load generator run.ts hands to the steps in other files.

/** one row of the printed table: a figure, its baseline from the same run, and the ratio judged against a target */
export interface Row {
  bench: string
  measured: string
  baseline: string
  ratio: number
  target: string
  pass: boolean
}

/** run.ts's autocannon wrapper: p99 latency and requests/s of one load */
export type Load = (opts: { url: string; connections: number; key?: string; seconds?: number; headers?: Record<string, string> }) => Promise<{ rps: number; p99: number }>
