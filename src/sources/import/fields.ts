// CSV fields of the trade and kline dumps (hot path: plain split + Number, no regexes).
//
// Timestamps: any value >= 1e14 is taken as microseconds and FLOORED to ms (12:00:59.999999 -> 12:00:59.999, so a
// trade never moves into the next minute); smaller values are ms. After conversion it must lie in 2009..2100.

const MIN_TS = Date.UTC(2009, 0, 3)
const MAX_TS = Date.UTC(2100, 0, 1)

/** ms or µs (>= 1e14) integer -> integer ms (floored); NaN when malformed / out of range */
export function toMillis(raw: string): number {
  if (raw.length === 0) return NaN
  const v = Number(raw)
  if (!Number.isInteger(v)) return NaN
  const ms = v >= 1e14 ? (v - (v % 1000)) / 1000 : v
  return ms >= MIN_TS && ms < MAX_TS ? ms : NaN
}

export const num = (s: string) => (s.length === 0 ? NaN : Number(s))

export function parseBool(s: string): boolean | null {
  if (s === 'true' || s === 'True' || s === 'TRUE') return true
  if (s === 'false' || s === 'False' || s === 'FALSE') return false
  return null
}

export const isDigitStart = (s: string) => {
  const c = s.charCodeAt(0)
  return c >= 48 && c <= 57
}

/** CSV split honouring double quotes (tardis never quotes in practice; this is the slow path) */
export function splitCsvLine(line: string): string[] {
  if (line.indexOf('"') === -1) return line.split(',')
  const out: string[] = []
  let cur = ''
  let q = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (q) {
      if (c === '"') {
        if (line[i + 1] === '"') (cur += '"'), i++
        else q = false
      } else cur += c
    } else if (c === '"') q = true
    else if (c === ',') out.push(cur), (cur = '')
    else cur += c
  }
  out.push(cur)
  return out
}
