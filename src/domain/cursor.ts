// Paging cursors (docs/contract.md#paging): the position of the next page, sealed with a message authentication code
// over the position, the endpoint and the parameters that choose the data, so a caller can pass one back unchanged
// but can neither make one, nor alter one, nor use one with another endpoint or other parameters. The code itself
// (HMAC-SHA256 under the service's secret) is made outside the domain (src/store/cursor-secret.ts) and handed in.

/** what a cursor holds: the window [s, e) of the first page, Unix ms, and where the next page starts (f) */
export interface CursorState {
  s: number
  e: number
  /** an interval start (series) or an endpoint's own position (lists) */
  f: number
}

/** the authentication code of a message, base64url (the service's secret stays with whoever made the function) */
export type CursorMac = (message: string) => string

/** what a cursor is bound to besides its parameters: the service's code and the endpoint (its GraphQL root field) */
export interface CursorScope {
  mac: CursorMac
  endpoint: string
}

// the parameters that place a page rather than choose the data: everything else must be what the first page had
const PLACING = new Set(['limit', 'cursor'])

/** the parameters that choose the data (coin, exchange, interval, window, filters), one text for one set of values */
export const canonicalParams = (values: Record<string, unknown>): string =>
  JSON.stringify(
    Object.keys(values)
      .filter((k) => !PLACING.has(k) && values[k] !== undefined && values[k] !== null)
      .sort()
      .map((k) => [k, values[k]]),
  )

// a version, so a later form of cursor can never be read as this one
const FORM = 'cursor/1'
/** base64url of the position, a dot, the code: what the parse accepts before checking the code */
export const CURSOR_TEXT = /^([A-Za-z0-9_-]{1,160})\.([A-Za-z0-9_-]{16,64})$/

const signed = (payload: string, scope: CursorScope, values: Record<string, unknown>) => scope.mac(`${FORM}\n${scope.endpoint}\n${canonicalParams(values)}\n${payload}`)

// compares every character whatever the first difference, so the time taken says nothing of the code
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

export function sealCursor(c: CursorState, scope: CursorScope, values: Record<string, unknown>): string {
  const payload = Buffer.from(JSON.stringify([c.s, c.e, c.f])).toString('base64url')
  return `${payload}.${signed(payload, scope, values)}`
}

/** the position of a cursor this endpoint issued for these parameters; null for anything else */
export function openCursor(text: string, scope: CursorScope, values: Record<string, unknown>): CursorState | null {
  const m = CURSOR_TEXT.exec(text)
  if (!m || !sameText(m[2]!, signed(m[1]!, scope, values))) return null
  try {
    const v: unknown = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8'))
    if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'number' && Number.isSafeInteger(x))) return null
    const [s, e, f] = v as number[]
    return { s: s!, e: e!, f: f! }
  } catch {
    return null
  }
}
