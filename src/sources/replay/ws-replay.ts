// Recorded WebSocket frames delivered through ccxt.pro's own client: every connection a venue's CCXT instances open
// during a replay is an in-memory one, and a frame enters CCXT exactly where a socket's would
// (WsClient.onMessage -> JSON parse -> exchange.handleMessage). A frame goes to the one connection that subscribed to
// its stream; a frame nobody has subscribed to yet waits (a connector subscribes after its markets load) until its
// stream is subscribed or the replay has moved on by the longest kept silence.
import type { Exchange } from 'ccxt'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { WsLine } from './format.js'
import type { VenueRules } from './venues.js'

interface ReplayClient {
  url: string
  onMessage(event: { data: string }): void
  onOpen(): void
  onError(err: Error): void
  createConnection(): void
  keepAlive: number
  connection: unknown
}

interface Pending {
  line: WsLine
  streams: string[]
  /** compressed time the frame was due */
  at: number
}

export type Delivery = 'delivered' | 'pending' | 'skipped'

const noop = () => {}

export class WsReplay {
  private readonly instances: Exchange[] = []
  private readonly streamsOf = new WeakMap<object, Set<string>>()
  /** frames handed to a connection asynchronously, in order; later frames for it queue behind them */
  private readonly outbox = new WeakMap<object, string[]>()
  private pending: Pending[] = []
  delivered = 0
  skipped = 0
  expired = 0

  constructor(
    readonly venue: ExchangeId,
    private readonly rules: VenueRules,
  ) {}

  /** every connection `ex` opens from now on is in memory and fed by this replay */
  install(ex: Exchange): void {
    this.instances.push(ex)
    const anyEx = ex as unknown as { client(url: string): ReplayClient }
    const original = anyEx.client.bind(ex)
    const streamsOf = this.streamsOf
    anyEx.client = (url: string) => {
      const client = original(url)
      if (!streamsOf.has(client)) {
        streamsOf.set(client, new Set())
        client.keepAlive = 0
        const replay = this
        client.createConnection = function (this: ReplayClient) {
          this.connection = {
            readyState: 1,
            send: (data: string, _opts: unknown, cb?: (err?: Error) => void) => {
              cb?.()
              replay.sent(client, data)
            },
            close: noop,
          }
          setTimeout(() => this.onOpen(), 0)
        }
      }
      return client
    }
  }

  private clients(): ReplayClient[] {
    return this.instances.flatMap((ex) => Object.values((ex as unknown as { clients?: Record<string, ReplayClient> }).clients ?? {})).filter((c) => this.streamsOf.has(c))
  }

  private sent(client: ReplayClient, data: string): void {
    let message: unknown
    try {
      message = JSON.parse(data)
    } catch {
      return
    }
    const streams = this.rules.subscribedStreams(message)
    const mine = this.streamsOf.get(client)!
    for (const s of streams) mine.add(s)
    const queue: string[] = []
    const ack = this.rules.acknowledge?.(message)
    if (ack !== undefined) queue.push(JSON.stringify(ack))
    // frames that arrived before this subscription, in their order, after the acknowledgement
    const ready = streams.length ? this.pending.filter((p) => p.streams.some((s) => mine.has(s))) : []
    if (ready.length) this.pending = this.pending.filter((p) => !ready.includes(p))
    this.delivered += ready.length
    for (const p of ready) queue.push(p.line.frame)
    if (queue.length) this.enqueue(client, queue)
  }

  /** hand frames to a connection on the next turn of the event loop, after any already queued for it */
  private enqueue(client: ReplayClient, frames: string[]): void {
    const box = this.outbox.get(client)
    if (box) {
      box.push(...frames)
      return
    }
    this.outbox.set(client, [...frames])
    setTimeout(() => {
      const out = this.outbox.get(client) ?? []
      this.outbox.delete(client)
      for (const text of out) this.feed(client, text)
    }, 0)
  }

  private feed(client: ReplayClient, text: string): void {
    // CCXT's onMessage catches what the handler throws and rejects the client's futures with it
    client.onMessage({ data: text })
  }

  /** deliver one recorded frame (due at compressed time `at`) */
  deliver(line: WsLine, at: number): Delivery {
    let frame: unknown
    try {
      frame = JSON.parse(line.frame)
    } catch {
      frame = undefined
    }
    const streams = this.rules.frameStreams(frame)
    if (streams.length === 0) {
      this.skipped++
      return 'skipped'
    }
    const target = this.subscriber(line.url, streams)
    if (!target) {
      this.pending.push({ line, streams, at })
      return 'pending'
    }
    if (this.outbox.has(target)) this.enqueue(target, [line.frame])
    else this.feed(target, line.frame)
    this.delivered++
    return 'delivered'
  }

  /** the connection subscribed to one of the streams; connections on the frame's own URL (or host) first */
  private subscriber(url: string, streams: string[]): ReplayClient | undefined {
    const subscribed = this.clients().filter((c) => streams.some((s) => this.streamsOf.get(c)!.has(s)))
    if (subscribed.length <= 1) return subscribed[0]
    const rec = safeUrl(url)
    const same = (pick: (u: URL) => string) => subscribed.filter((c) => rec && safeUrl(c.url) && pick(safeUrl(c.url)!) === pick(rec))
    return subscribed.find((c) => c.url === url) ?? same((u) => u.host + u.pathname)[0] ?? same((u) => u.host)[0] ?? subscribed[0]
  }

  /** frames still waiting for a subscriber once the replay is past `compressed` - maxGapMs are dropped */
  expire(compressed: number, maxGapMs: number): void {
    const before = this.pending.length
    this.pending = this.pending.filter((p) => p.at >= compressed - maxGapMs)
    this.expired += before - this.pending.length
  }

  /** the streams the open connections have subscribed to */
  subscriptions(): string[] {
    return [...new Set(this.clients().flatMap((c) => [...this.streamsOf.get(c)!]))]
  }

  pendingCount(): number {
    return this.pending.length
  }
}

function safeUrl(u: string): URL | undefined {
  try {
    return new URL(u)
  } catch {
    return undefined
  }
}
