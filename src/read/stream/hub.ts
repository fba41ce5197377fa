// The push side of the market: every event a stream client or an alert rule can follow, one channel each, with a
// sequence number as its id. One process: the hub numbers events itself and keeps an in-memory ring per channel
// (RETENTION_MS, at most RING_MAX events per channel), so a client reconnecting with Last-Event-ID gets what it
// missed (the newest of it: each stream bounds its replay). With NATS (src/ingest/bus) the producing node publishes
// to JetStream and every API node appends what it receives under the JetStream sequence number (append()), so an id
// means the same on every node.
export const STREAM_CHANNELS = ['ticker', 'imbalance', 'divergence', 'liquidations', 'regime'] as const
export type StreamChannel = (typeof STREAM_CHANNELS)[number]

export interface StreamEvent {
  /** the sequence number: increasing across all channels of a deployment */
  id: number
  channel: StreamChannel
  coin: string
  /** Unix ms the event describes */
  ts: number
  data: Record<string, unknown>
}

export type StreamDraft = Omit<StreamEvent, 'id'>

/** how long events stay available to a reconnecting client */
const RETENTION_MS = 15 * 60_000
const RING_MAX = 50_000

type Listener = (e: StreamEvent) => void

/** why every open stream was ended (graceful shutdown): sent as the stream's last event */
export interface StreamClosing {
  reason: string
  detail: string
}

/** what makes two publications the same event (the bus keeps one): a venue's ticker at a ts, a liquidation's id, a computed signal's slot */
export function eventKey(e: StreamDraft): string {
  const d = e.data
  if (e.channel === 'ticker') return `ticker:${String(d.exchange)}:${e.coin}:${String(d.market_type)}:${e.ts}`
  if (e.channel === 'liquidations') return `liq:${String(d.exchange)}:${e.coin}:${String(d.id)}`
  return `${e.channel}:${e.coin}:${e.ts}`
}

export class StreamHub {
  /** per channel, oldest first, each with the time it arrived here (retention counts from arrival, not from the event's ts) */
  private readonly rings = new Map<StreamChannel, { at: number; e: StreamEvent }[]>(STREAM_CHANNELS.map((c) => [c, []]))
  private readonly listeners = new Set<Listener>()
  private seq = 0
  /** set when events go through the bus: publish() hands them to it, append() brings them back numbered */
  forward: ((e: StreamDraft) => void) | null = null

  constructor(private readonly clock: () => number = Date.now) {}

  /** a new event from this node's market */
  publish(e: StreamDraft): void {
    if (this.forward) return this.forward(e)
    this.append({ ...e, id: ++this.seq })
  }

  /** a numbered event (from the bus, or from publish()); older or repeated ids are ignored */
  append(e: StreamEvent): void {
    const ring = this.rings.get(e.channel)
    if (!ring) return
    const last = ring[ring.length - 1]
    if (last && last.e.id >= e.id) return
    if (e.id > this.seq) this.seq = e.id
    const now = this.clock()
    ring.push({ at: now, e })
    const floor = now - RETENTION_MS
    let drop = Math.max(0, ring.length - RING_MAX)
    while (drop < ring.length - 1 && ring[drop]!.at < floor) drop++
    if (drop) ring.splice(0, drop)
    for (const l of this.listeners) l(e)
  }

  /** the newest id handed out (0 before any event) */
  lastId(): number {
    return this.seq
  }

  /** the retained events of these channels after id, oldest first */
  since(channels: readonly StreamChannel[], afterId: number): StreamEvent[] {
    const out: StreamEvent[] = []
    for (const c of channels) for (const { e } of this.rings.get(c)!) if (e.id > afterId) out.push(e)
    return out.sort((a, b) => a.id - b.id)
  }

  /**
   * The newest `max` retained events of these channels and coins (null: all) after id, oldest first; `more` says
   * older ones after id were left out. Walks each ring from its newest end, so a reconnect costs what it is sent.
   */
  recent(channels: readonly StreamChannel[], coins: readonly string[] | null, afterId: number, max: number): { events: StreamEvent[]; more: boolean } {
    const out: StreamEvent[] = []
    let more = false
    for (const c of channels) {
      const ring = this.rings.get(c)!
      let taken = 0
      for (let i = ring.length - 1; i >= 0 && ring[i]!.e.id > afterId; i--) {
        const e = ring[i]!.e
        if (coins && !coins.includes(e.coin)) continue
        if (taken === max) {
          more = true
          break
        }
        out.push(e)
        taken++
      }
    }
    out.sort((a, b) => a.id - b.id)
    if (out.length > max) more = true
    return { events: out.slice(-max), more }
  }

  private readonly demand = new Set<{ kinds: readonly string[]; coins: readonly string[] | null }>()

  /** computed kinds (imbalance, divergence, regime; funding for alert rules) wanted for these coins (null: all) until released */
  want(kinds: readonly string[], coins: readonly string[] | null): () => void {
    const w = { kinds, coins }
    this.demand.add(w)
    return () => this.demand.delete(w)
  }

  /** what is wanted now: kind → coins (null: every coin) */
  wanted(): Map<string, Set<string> | null> {
    const out = new Map<string, Set<string> | null>()
    for (const w of this.demand)
      for (const k of w.kinds) {
        if (out.has(k) && out.get(k) === null) continue
        if (w.coins === null) out.set(k, null)
        else out.set(k, new Set([...(out.get(k) ?? []), ...w.coins]))
      }
    return out
  }

  subscribe(l: Listener): () => void {
    this.listeners.add(l)
    return () => this.listeners.delete(l)
  }

  subscribers(): number {
    return this.listeners.size
  }

  private readonly closers = new Set<(why: StreamClosing) => void>()
  /** set once close() was called: a stream opened afterwards ends at once */
  closing: StreamClosing | null = null

  /** end every open stream (GET /v1/stream and the GraphQL subscription) with a last event saying why */
  close(why: StreamClosing): void {
    this.closing ??= why
    for (const c of [...this.closers]) c(why)
  }

  /** told when close() is called (at once when it already was); returns the unsubscribe */
  onClose(c: (why: StreamClosing) => void): () => void {
    if (this.closing) {
      c(this.closing)
      return () => {}
    }
    this.closers.add(c)
    return () => this.closers.delete(c)
  }
}
