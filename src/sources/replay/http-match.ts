// Which recorded HTTP response answers a call (docs/recordings.md "Matching a call"). Pure.
//
// Same venue, method and path; then, by preference: every parameter equal; the same parameters apart from the
// venue's time-window and paging ones; or compatible (every parameter both sides carry agrees, ignored ones aside:
// a recorded answer for one instrument answers a call for all, as far as it goes). The first of these three levels
// that has any candidate decides; within it the newest response at or before the replay clock wins. A call made
// before the recording's first answer for it gets that first answer at once: a real recording answers its first polls
// within milliseconds of the start, and in a collage a venue starts before its payloads play.
import type { ExchangeId } from '../../domain/exchanges.js'
import type { HttpLine } from './format.js'
import { HISTORY_RULES, historyEndpoint, rowTime, type TimeWindow } from './history-rules.js'
import type { RequestKey, VenueRules } from './venues.js'

/** A call's or a recorded request's key: pathname plus query parameters, or a JSON body flattened. */
export function requestKey(method: string, url: string, body?: string): RequestKey {
  const u = new URL(url)
  const params = new Map<string, string>()
  for (const [k, v] of u.searchParams) params.set(k, v)
  if (body !== undefined && body !== '') {
    let parsed: unknown
    try {
      parsed = JSON.parse(body)
    } catch {
      params.set('$body', body)
    }
    if (parsed !== undefined) flatten(parsed, '', params)
  }
  return { method: method.toUpperCase(), path: u.pathname, params }
}

function flatten(value: unknown, prefix: string, out: Map<string, string>): void {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out)
  } else out.set(prefix || '$body', typeof value === 'string' ? value : JSON.stringify(value))
}

/** the last segment of a dotted name: the JSON body's req.startTime is a startTime too */
const leaf = (name: string) => name.slice(name.lastIndexOf('.') + 1)

const equalAll = (a: Map<string, string>, b: Map<string, string>) => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v)

function kept(params: Map<string, string>, ignored: ReadonlySet<string>): Map<string, string> {
  return new Map([...params].filter(([k]) => !ignored.has(leaf(k))))
}

function compatible(a: Map<string, string>, b: Map<string, string>): boolean {
  for (const [k, v] of a) if (b.has(k) && b.get(k) !== v) return false
  return true
}

export interface IndexedResponse {
  line: HttpLine
  /** compressed time of the response */
  at: number
  key: RequestKey
  kept: Map<string, string>
  /** a history page's window (computed when first needed; null: not a page of a window) */
  window?: TimeWindow | null
}

/** how a history call was answered */
export type Covered = { response: IndexedResponse; how: 'exact' | 'covering' }


export class HttpIndex {
  private readonly byPath = new Map<string, IndexedResponse[]>()

  constructor(
    lines: readonly HttpLine[],
    private readonly rules: Record<ExchangeId, VenueRules>,
    compress: (t: number) => number,
  ) {
    for (const line of lines) {
      const key = requestKey(line.method, line.url, line.requestBody)
      const id = `${line.venue} ${key.method} ${key.path}`
      const list = this.byPath.get(id) ?? []
      list.push({ line, at: compress(line.at), key, kept: kept(key.params, rules[line.venue].ignoredParams) })
      this.byPath.set(id, list)
    }
  }

  /** any recorded request of this venue the predicate accepts */
  has(venue: ExchangeId, accept: (k: RequestKey) => boolean): boolean {
    for (const [id, list] of this.byPath) if (id.startsWith(`${venue} `) && list.some((r) => accept(r.key))) return true
    return false
  }

  private levels(venue: ExchangeId, call: RequestKey): Array<(r: IndexedResponse) => boolean> {
    const callKept = kept(call.params, this.rules[venue].ignoredParams)
    return [(r) => equalAll(r.key.params, call.params), (r) => equalAll(r.kept, callKept), (r) => compatible(r.kept, callKept)]
  }

  /** a call on one of the venue's history endpoints that asks for a time window */
  isHistoryCall(venue: ExchangeId, call: RequestKey): boolean {
    return historyEndpoint(venue, call) !== undefined && HISTORY_RULES[venue].window(call) !== null
  }

  /**
   * The recorded page that answers a history call, whenever it is made: a successful answer to the very same request
   * (the newest), else the one whose window covers the call's window (the narrowest, then the newest) with the same
   * parameters apart from the window and paging ones. Undefined when no recorded page covers it.
   */
  cover(venue: ExchangeId, call: RequestKey): Covered | undefined {
    const list = this.byPath.get(`${venue} ${call.method} ${call.path}`)
    const asked = HISTORY_RULES[venue].window(call)
    if (!list || !asked) return undefined
    const pages = list.filter((r) => r.line.status >= 200 && r.line.status < 300)
    const exact = pages.filter((r) => equalAll(r.key.params, call.params)).at(-1)
    if (exact) return { response: exact, how: 'exact' }
    const want = { from: asked.from ?? -Infinity, to: asked.to ?? Infinity }
    const callKept = kept(call.params, this.rules[venue].ignoredParams)
    let best: { r: IndexedResponse; span: number } | undefined
    for (const r of pages) {
      if (!equalAll(r.kept, callKept)) continue
      const w = this.pageWindow(venue, r)
      if (!w || w.from > want.from || w.to < want.to) continue
      const span = w.to - w.from
      if (!best || span <= best.span) best = { r, span }
    }
    return best && { response: best.r, how: 'covering' }
  }

  /**
   * What a recorded page covers: its request's window; where the request leaves a side open, its rows' first or last
   * time (none: the venue had nothing on that side); a page asked by cursor covers its rows' span only.
   */
  private pageWindow(venue: ExchangeId, r: IndexedResponse): TimeWindow | null {
    if (r.window !== undefined) return r.window
    const rules = HISTORY_RULES[venue]
    const asked = rules.window(r.key)
    let window: TimeWindow | null = null
    if (asked) {
      let body: unknown
      try {
        body = JSON.parse(r.line.body)
      } catch {
        body = null
      }
      const times = rules.rows(body).map(rowTime).filter((t): t is number => t !== null)
      const first = times.length ? Math.min(...times) : null
      const last = times.length ? Math.max(...times) + 1 : null
      if (rules.cursor(r.key)) window = first !== null && last !== null ? { from: first, to: last } : null
      else window = { from: asked.from ?? first ?? -Infinity, to: asked.to ?? last ?? Infinity }
    }
    r.window = window
    return window
  }

  /**
   * The response for `call` at compressed time `now` of pass `pass`, undefined when the recording has none. Before the
   * pass's first candidate: the previous pass's newest (the recording's last) in a later pass, the first one in the first.
   */
  match(venue: ExchangeId, call: RequestKey, now: number, pass: number): IndexedResponse | undefined {
    const list = this.byPath.get(`${venue} ${call.method} ${call.path}`)
    if (!list) return undefined
    for (const accept of this.levels(venue, call)) {
      let newest: IndexedResponse | undefined
      let first: IndexedResponse | undefined
      let last: IndexedResponse | undefined
      for (const r of list) {
        if (!accept(r)) continue
        first ??= r
        last = r
        if (r.at <= now) newest = r
      }
      if (first) return newest ?? (pass > 0 ? last : first)
    }
    return undefined
  }
}
