// GET /v1/stream: Server-Sent Events over the push channels (docs/streaming.md). 1 credit per channel per minute
// connected, charged through the credit batcher (atomic, never below zero) when each minute starts; a minute the
// account cannot pay for is not streamed: a final `end` event says why, then the stream closes. Each event's id
// is its sequence number: a client reconnecting with Last-Event-ID gets the retained events after it first, within
// the replay bound. Bounded per stream (src/graphql/stream-bounds.ts) and in number per key and account.
import type { Request, RequestHandler, Response } from 'express'
import { invalidParameter, toApiError, unavailable } from '../errors.js'
import { boundedReplay, closeWithinGrace, slowReader, sseFrame } from '../graphql/stream-bounds.js'
import { chargeStreamMinute, STREAM_PATH } from '../graphql/stream-meter.js'
import { STREAM_CHANNELS, type StreamChannel, type StreamEvent } from '../read/stream/hub.js'
import { sendProblem } from '../rest/envelope.js'
import type { Services } from '../services.js'

export { STREAM_PATH }
const PARAMS = new Set(['channels', 'coin', 'last_event_id'])
const COMPUTED: readonly StreamChannel[] = ['imbalance', 'divergence', 'regime']

export interface StreamRequest {
  channels: StreamChannel[]
  /** null: every coin */
  coins: string[] | null
  lastEventId: number | null
}

/** the query (channels, coin: comma-separated lists) and Last-Event-ID (header, or last_event_id for clients that cannot set headers) */
function parseStreamRequest(query: Record<string, unknown>, lastEventHeader: string | undefined, knownCoins: readonly string[]): StreamRequest {
  for (const k of Object.keys(query)) if (!PARAMS.has(k)) throw invalidParameter(k, `Unknown parameter "${k.slice(0, 50)}".`, [...PARAMS])
  const list = (name: string): string[] | null => {
    const v = query[name]
    if (v === undefined) return null
    if (typeof v !== 'string' || !v.trim()) throw invalidParameter(name, `${name} must be a comma-separated list.`)
    return [...new Set(v.split(',').map((s) => s.trim()).filter(Boolean))]
  }
  const channels = (list('channels') ?? ['ticker']).map((c) => c.toLowerCase())
  for (const c of channels) if (!(STREAM_CHANNELS as readonly string[]).includes(c)) throw invalidParameter('channels', `Unknown channel "${c.slice(0, 50)}".`, STREAM_CHANNELS)
  const coins = list('coin')?.map((c) => c.toUpperCase()) ?? null
  for (const c of coins ?? []) if (!knownCoins.includes(c)) throw invalidParameter('coin', `Unknown coin "${c.slice(0, 50)}".`, knownCoins)
  const rawId = lastEventHeader ?? (typeof query.last_event_id === 'string' ? query.last_event_id : undefined)
  let lastEventId: number | null = null
  if (rawId !== undefined && rawId !== '') {
    if (!/^\d{1,15}$/.test(rawId)) throw invalidParameter(lastEventHeader !== undefined ? 'Last-Event-ID' : 'last_event_id', 'The last event id must be the id of an event this stream sent (a non-negative integer).')
    lastEventId = Number(rawId)
  }
  return { channels: channels as StreamChannel[], coins, lastEventId }
}

export function streamRoute(services: Services): RequestHandler {
  const { config, market } = services
  return (req, res, next) => {
    if (req.method !== 'GET' || req.path.replace(/\/$/, '').toLowerCase() !== STREAM_PATH) return next()
    res.locals.route = STREAM_PATH
    void open(req, res)
  }

  async function open(req: Request, res: Response) {
    const requestId = res.locals.requestId as string
    let principal
    let ask: StreamRequest
    let remaining: number
    let giveSlot = () => {}
    try {
      principal = await services.auth.authenticate(req.headers.authorization)
      ask = parseStreamRequest(req.query as Record<string, unknown>, req.header('last-event-id'), market.coins())
      if (market.stream.closing) throw unavailable(`${market.stream.closing.detail} Nothing was charged.`)
      giveSlot = await services.streams.take(principal)
      const first = await chargeStreamMinute(services, principal, ask.channels.length, requestId)
      if (!first.ok) throw first.error
      remaining = first.remaining
    } catch (e) {
      giveSlot()
      const err = toApiError(e)
      if (err.status >= 500) services.logger.error({ err: e, requestId }, 'stream refused')
      // a cap reached: the same credit headers as the per-key limiter's 429
      if (err.code === 'rate_limited' && principal) res.set({ 'X-Credits-Charged': '0', 'X-Credits-Remaining': String(principal.credits) })
      return sendProblem(res, err, requestId)
    }
    const cost = ask.channels.length
    res.status(200)
    res.set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      'X-Request-Id': requestId,
      'X-Credits-Charged': String(cost),
      'X-Credits-Remaining': String(remaining),
    })
    res.flushHeaders()
    res.socket?.setNoDelay(true)
    let closed = false
    let lastSent = ask.lastEventId ?? 0
    const wanted = (e: StreamEvent) => ask.channels.includes(e.channel) && (!ask.coins || ask.coins.includes(e.coin))
    let unsubscribe = () => {}
    let release = () => {}
    let unclose = () => {}
    const timers: NodeJS.Timeout[] = []
    // while the socket pushes back, frames wait here (the live ones are strings shared by every stream, see
    // sseFrame) and leave as one write on 'drain'; a reader leaving more than STREAM_BUFFER_BYTES unsent is dropped
    // (what waits here is let go: it resumes from the last id it did get)
    let waiting: string[] = []
    let waitingBytes = 0
    const stop = () => {
      if (closed) return
      closed = true
      giveSlot()
      unclose()
      for (const t of timers) clearInterval(t)
      unsubscribe()
      release()
    }
    const finish = (reason: string, detail: Record<string, unknown> = {}) => {
      if (closed) return
      // past the buffer bound too: a client that reads again learns why, and the grace bounds how long it may wait
      res.write(`${waiting.join('')}event: end\ndata: ${JSON.stringify({ reason, ...detail })}\n\n`)
      stop()
      res.end()
      closeWithinGrace(res)
    }
    const write = (chunk: string) => {
      if (closed) return
      if (res.writableLength + waitingBytes + chunk.length > config.STREAM_BUFFER_BYTES) {
        waiting = []
        return finish('slow_reader', slowReader(config))
      }
      if (!waiting.length && !res.writableNeedDrain) return void res.write(chunk)
      waiting.push(chunk)
      waitingBytes += chunk.length
    }
    res.on('drain', () => {
      if (closed || !waiting.length) return
      const out = waiting.join('')
      waiting = []
      waitingBytes = 0
      res.write(out)
    })
    const send = (e: StreamEvent, frame?: string) => {
      if (closed || e.id <= lastSent || !wanted(e)) return
      lastSent = e.id
      write(frame ?? sseFrame(e))
    }
    // live events wait while the missed ones are written, then follow (ids dedupe the overlap)
    let backlog: StreamEvent[] | null = []
    unsubscribe = market.stream.subscribe((e) => (backlog ? backlog.push(e) : send(e)))
    write(`retry: 3000\n: ${ask.channels.join(',')} ${ask.coins?.join(',') ?? 'all coins'}; ${cost} credit(s) per minute\n\n`)
    if (ask.lastEventId !== null) {
      const replay = boundedReplay(market.stream, ask.channels, ask.coins, ask.lastEventId, config)
      if (replay.truncated) write(`event: replay_truncated\ndata: ${JSON.stringify(replay.truncated)}\n\n`)
      for (const { e, frame } of replay.events) send(e, frame)
    } else lastSent = market.stream.lastId()
    for (const e of backlog) send(e)
    backlog = null
    if (closed) return
    const kinds = COMPUTED.filter((k) => (ask.channels as string[]).includes(k))
    if (kinds.length) release = market.stream.want(kinds, ask.coins)

    timers.push(setInterval(() => write(`: heartbeat ${services.clock()}\n\n`), config.STREAM_HEARTBEAT_MS))
    timers.push(
      setInterval(() => {
        // a connection gone without its close event reaching us is not charged again
        if (res.destroyed || req.socket.destroyed) return stop()
        void chargeStreamMinute(services, principal, cost, requestId).then(
          (r) => {
            if (closed) return
            if (r.ok) write(`: charged ${cost} credit(s); ${r.remaining} remaining\n\n`)
            else finish(r.error.code, { detail: r.error.message, credits_remaining: r.remaining })
          },
          (err: unknown) => {
            services.logger.error({ err, requestId }, 'stream: charging a minute failed')
            finish('unavailable', { detail: 'The credit store could not be reached; nothing was charged for this minute.' })
          },
        )
      }, config.STREAM_MINUTE_MS),
    )
    // graceful shutdown: a last event, then the clients resume on another node with Last-Event-ID
    unclose = market.stream.onClose((why) => finish(why.reason, { detail: why.detail }))
    res.on('close', stop)
    // the client may have gone while the first minute was being charged
    if (req.socket.destroyed) stop()
  }
}
