// Shared helpers for the security / reliability tests: a raw HTTP client (so hostile paths reach the server
// byte for byte, unlike fetch, which normalizes `..` and refuses some headers), the problem+json shape check,
// leak detectors, and a credits snapshot taken straight from the store.
import { request } from 'node:http'
import { expect } from 'vitest'
import type { TestService } from '../helpers/service.js'

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** One request on a fresh connection. Rejects on a connection reset / socket hang up (that is a finding). */
export function rawRequest(
  baseUrl: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawResponse> {
  const u = new URL(baseUrl)
  const body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body, 'utf8')
  // an explicit length: Node's client sends DELETE/OPTIONS bodies without one (and without chunking) otherwise
  const chunked = Object.keys(opts.headers ?? {}).some((h) => h.toLowerCase() === 'transfer-encoding')
  const headers = { ...(body && !chunked ? { 'content-length': String(body.length) } : {}), ...opts.headers }
  return new Promise((resolve, reject) => {
    const req = request(
      { host: u.hostname, port: Number(u.port), method: opts.method ?? 'GET', path: opts.path, headers, agent: false, timeout: 20_000 },
      (res) => {
        // an event stream (GET /v1/stream) never ends by itself: take its head and hang up, so a fuzz run leaves
        // no stream open (and charging its minutes) behind it
        if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          res.destroy()
          return resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' })
        }
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error(`timeout: ${opts.method ?? 'GET'} ${opts.path.slice(0, 200)}`)))
    req.on('error', reject)
    if (body) req.write(body)
    req.end()
  })
}

const PROBLEM_CODES = [
  'invalid_parameter', 'invalid_request', 'unauthorized', 'insufficient_credits', 'not_found', 'method_not_allowed', 'conflict',
  'payload_too_large', 'unsupported_media_type', 'rate_limited', 'unavailable', 'internal',
]

const header = (h: RawResponse['headers'] | Headers, name: string): string | null => {
  if (h instanceof Headers) return h.get(name)
  const v = h[name.toLowerCase()]
  return Array.isArray(v) ? v.join(', ') : (v ?? null)
}

/** RFC 9457 shape of docs/contract.md#errors: type, title, status (= HTTP status), detail, code; problem+json content type */
export function assertProblemShape(status: number, headers: RawResponse['headers'] | Headers, body: string, context: string): Record<string, unknown> {
  const ct = header(headers, 'content-type') ?? ''
  expect(ct.startsWith('application/problem+json'), `${context}: non-2xx (${status}) is not application/problem+json but "${ct}"; body ${body.slice(0, 300)}`).toBe(true)
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    throw new Error(`${context}: problem body is not JSON: ${body.slice(0, 300)}`)
  }
  const p = parsed as Record<string, unknown>
  expect(typeof p.type, `${context}: problem.type`).toBe('string')
  expect(typeof p.title, `${context}: problem.title`).toBe('string')
  expect(typeof p.detail, `${context}: problem.detail`).toBe('string')
  expect(p.status, `${context}: problem.status must equal the HTTP status`).toBe(status)
  expect(PROBLEM_CODES, `${context}: problem.code "${String(p.code)}" is not a documented code`).toContain(p.code)
  return p
}

/** things that must never appear in a response body (stack traces, file paths, internals) */
const LEAK_PATTERNS: RegExp[] = [
  /at .*\.ts:\d/,
  /node_modules/,
  /Error:[^\n]*\n\s+at /,
  /\bat [\w.<>]+ \(\/[^)]*:\d+:\d+\)/, // "at fn (/abs/path.js:1:2)"
  /\/work\/main\//,
  /\bsrc\/[\w/.-]+\.(ts|js)\b/,
  /PrismaClient\w*Error|Invalid `[\w.]+\(\)` invocation/,
]

/**
 * Assert none of the leak patterns occur in the body — unless the caller's own input already contained that text
 * (error details echo bits of the input, e.g. an unknown parameter name; that echo is not a leak).
 */
export function assertNoLeaks(body: string, input: string, context: string): void {
  for (const re of LEAK_PATTERNS) {
    if (re.test(input)) continue
    const m = re.exec(body)
    expect(m, `${context}: response body leaks internals (${re}): …${m ? body.slice(Math.max(0, m.index - 80), m.index + 160) : ''}…`).toBeNull()
  }
}

export interface CreditSnapshot {
  balances: Map<string, number>
  chargeRows: number
  ledgerRows: number
}

export async function creditSnapshot(t: TestService, accountIds: readonly string[]): Promise<CreditSnapshot> {
  const sql = t.services.db.sql
  const rows = await sql.query<{ id: string; credits: number }>('SELECT id, credits FROM account WHERE id = ANY($1::uuid[])', [accountIds])
  const [charges] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_ledger WHERE kind = 'charge'`)
  const [all] = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = ANY($1::uuid[])', [accountIds])
  return { balances: new Map(rows.map((r) => [r.id, Number(r.credits)])), chargeRows: Number(charges!.n), ledgerRows: Number(all!.n) }
}

export async function balanceOf(t: TestService, accountId: string): Promise<number> {
  const [r] = await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
  return Number(r!.credits)
}

export async function chargeRowsOf(t: TestService, accountId: string): Promise<{ n: number; sum: number }> {
  const [r] = await t.services.db.sql.query<{ n: number; s: number }>(
    `SELECT count(*)::int AS n, coalesce(-sum(delta), 0)::int AS s FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'`,
    [accountId],
  )
  return { n: Number(r!.n), sum: Number(r!.s) }
}

export async function gql(
  t: TestService,
  query: string,
  opts: { key?: string | null; variables?: Record<string, unknown>; operationName?: string } = {},
): Promise<{ res: Response; body: { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[]; extensions?: Record<string, unknown> } }> {
  const res = await t.fetch(`/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}) },
    body: JSON.stringify({ query, variables: opts.variables, operationName: opts.operationName }),
  })
  return { res, body: (await res.json()) as never }
}

