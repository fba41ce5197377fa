// CCXT's REST calls answered from the recording, through CCXT's own fetch hook: the recorded status and raw body go
// back into CCXT's response handling (handleRestResponse -> JSON parse -> handleErrors -> the method's parser).
// A call the recording cannot answer rejects like a network error and marks the venue degraded; never a crash.
// A call of the history service on a history endpoint is answered from the recorded page covering its window, or
// with the venue's empty answer (the runner records a hole), whenever it is made.
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Exchange } from 'ccxt'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { ReplayPosition } from './clock.js'
import { historyEndpoint } from './history-rules.js'
import { requestKey, type HttpIndex, type IndexedResponse } from './http-match.js'
import type { RequestKey } from './venues.js'

/** set while a history fetch runs: its REST calls are history calls */
const historyFetch = new AsyncLocalStorage<true>()

/** run a history fetch: the REST calls it makes are answered as history calls */
export const asHistoryFetch = <T>(fn: () => Promise<T>): Promise<T> => historyFetch.run(true, fn)

export interface HttpReplayHost {
  index: HttpIndex
  position(): ReplayPosition
  /** a single pass has played its last line */
  ended(): boolean
  /**
   * a call the recording cannot answer (it never will: the recording holds nothing on that path for it);
   * `first`: the first such call on this venue, method and path
   */
  unanswerable(venue: ExchangeId, what: string, first: boolean): void
  /** a history call no recorded page covers (answered empty); `first`: the first on this venue, method and path */
  uncovered?(venue: ExchangeId, what: string, first: boolean): void
}

/** history calls: answered by a recorded page of the same request, by a page covering their window, or empty */
export interface HistoryAnswers {
  exact: number
  covering: number
  uncovered: number
}

export class HttpReplay {
  private readonly loggedPaths = new Set<string>()
  /** `venue what` of every call the recording could not answer */
  private readonly unanswered = new Set<string>()
  answeredCount = 0
  unanswerableCount = 0
  readonly history: HistoryAnswers = { exact: 0, covering: 0, uncovered: 0 }
  private readonly loggedUncovered = new Set<string>()

  constructor(private readonly host: HttpReplayHost) {}

  install(venue: ExchangeId, ex: Exchange): void {
    const anyEx = ex as unknown as { fetchImplementation: unknown; enableRateLimit: boolean }
    anyEx.enableRateLimit = false
    anyEx.fetchImplementation = async (url: string, params: { method?: string; body?: unknown }) =>
      this.answer(venue, url, params.method ?? 'GET', typeof params.body === 'string' ? params.body : undefined)
  }

  private answer(venue: ExchangeId, url: string, method: string, body: string | undefined): Response {
    const call = requestKey(method, url, body)
    const what = `${call.method} ${call.path}${call.params.size ? ` ${JSON.stringify(Object.fromEntries(call.params))}` : ''}`
    // history pages answer by their window, not by when they were recorded: before and after the pass alike
    if (historyFetch.getStore() && this.host.index.isHistoryCall(venue, call)) return this.answerHistory(venue, call, what)
    // a single pass that has played out goes quiet, like a venue that stopped answering
    if (this.host.ended()) throw networkError(`${venue} ${what}: the recording has ended`)
    const pos = this.host.position()
    const found = this.host.index.match(venue, call, pos.compressed, pos.pass)
    if (!found) {
      this.unanswerableCount++
      const pathKey = `${venue} ${call.method} ${call.path}`
      const first = !this.loggedPaths.has(pathKey)
      this.loggedPaths.add(pathKey)
      this.unanswered.add(`${venue} ${what}`)
      this.host.unanswerable(venue, what, first)
      throw networkError(`${venue} ${what}: no recorded response`)
    }
    this.answeredCount++
    return toResponse(found)
  }

  private answerHistory(venue: ExchangeId, call: RequestKey, what: string): Response {
    const found = this.host.index.cover(venue, call)
    if (found) {
      this.history[found.how]++
      return toResponse(found.response)
    }
    this.history.uncovered++
    const pathKey = `${venue} ${call.method} ${call.path}`
    const first = !this.loggedUncovered.has(pathKey)
    this.loggedUncovered.add(pathKey)
    this.host.uncovered?.(venue, what, first)
    // the venue's answer with no rows: the fetcher returns an empty page and the runner records the span as a hole
    return new Response(historyEndpoint(venue, call)!.empty(call), { status: 200, headers: { 'content-type': 'application/json' } })
  }

  /** the calls of a venue the recording could not answer */
  unansweredCalls(venue: ExchangeId): string[] {
    return [...this.unanswered].filter((u) => u.startsWith(`${venue} `)).map((u) => u.slice(venue.length + 1))
  }
}

/** CCXT turns a TypeError from its fetch into a NetworkError carrying the cause's message */
function networkError(message: string): TypeError {
  return new TypeError('fetch failed', { cause: new Error(`replay: ${message}`) })
}

const NO_BODY = new Set([101, 204, 205, 304])

function toResponse(r: IndexedResponse): Response {
  const { status, body } = r.line
  return new Response(NO_BODY.has(status) ? null : body, { status, headers: { 'content-type': 'application/json' } })
}
