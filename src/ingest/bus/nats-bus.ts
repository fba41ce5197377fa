// The bus on NATS JetStream (the official @nats-io clients). Three streams per deployment (BUS_PREFIX):
//   <P>_LIVE  subjects <p>.live.<venue>.<coin>.<marketType>.<ticker|oi|book> and <p>.live._status.<node>; memory
//             storage, the last message per subject only, 10 minutes at most: a last-value cache that an API node
//             starting (or reconnecting) reads at once, then follows.
//   <P>_DATA  subject <p>.data: one message per store write (rows for the hot series, kinds of data changed);
//             memory storage, 15 minutes and 256 MB at most.
//   <P>_PUSH  subjects <p>.push.<channel>: the push channels (GET /v1/stream, alerts); memory storage, 15 minutes
//             and 256 MB at most; its sequence numbers are the events' ids on every API node, and each event
//             carries a deduplication id (Nats-Msg-Id) so a hot standby or a second API node computing the same
//             signal adds nothing.
// Live events go out as core publishes (captured by the stream; no acknowledgement awaited on the hot path);
// data messages are JetStream publishes, acknowledged: a failure is counted, and the API nodes notice the gap in
// the writer's numbering and reload from the store. NATS down: ingest keeps writing the store (the bus is not in
// its write path); API nodes serve from PostgreSQL. NATS back: every node makes sure the streams exist (a restarted
// server has lost its memory streams) and followers make their consumers again, then reload from the store.
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { DeliverPolicy, jetstream, type ConsumerMessages, type JetStreamClient } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { StreamDraft, StreamEvent } from '../../read/stream/hub.js'
import { subjectToken, type DataMessage, type LiveEvent, type StatusMessage } from './messages.js'
import { ensureStreams, streamNames } from './streams.js'

const KIND_TOKEN = { ticker: 'ticker', open_interest: 'oi', book: 'book' } as const
/** a connection that answers no PING for MAX_PING_OUT intervals is dropped and made again (a silent network cut) */
const PING_INTERVAL_MS = 5000
const MAX_PING_OUT = 2
/** while the streams cannot be made (JetStream still starting after a restart), try again this often */
const RETRY_MS = 1000
/** a publish that fails while connected checks the streams, at most this often */
const CHECK_AFTER_FAILURE_MS = 5000

export interface BusHandlers {
  live(e: LiveEvent): void
  status(s: StatusMessage): void
  data(m: DataMessage): void
  /** the consumers were (re)made: state built from the bus may have missed messages, reload it from the store */
  resync(): void
}

export interface BusStats {
  published: number
  publishFailures: number
  received: number
  /** times this node found a stream missing (or made again by another node) and made its consumers again */
  streamsRecreated: number
}

/** why a follower's consumers are looked at again */
interface Recovery {
  /** the streams that are not the ones its consumers read (NATS lost them; they were made again) */
  recreated: ReadonlySet<string>
  /** the connection was down meanwhile: what was built from the bus may have missed messages */
  reconnected: boolean
}

/** a follower's consumers as made: are they still the follower's current ones, and what to do when one ends */
interface Consuming {
  current(): boolean
  ended(): void
}

/** one follower's consumers, made again when their streams were */
interface Following {
  start(why: Recovery): Promise<void>
  stop(): void
}

export class NatsBus {
  private nc: NatsConnection | null = null
  private js: JetStreamClient | null = null
  private ready: Promise<void>
  private closed = false
  private readonly enc = new TextEncoder()
  private readonly dec = new TextDecoder()
  readonly stats: BusStats = { published: 0, publishFailures: 0, received: 0, streamsRecreated: 0 }
  /** connected to NATS now */
  connected = false
  /** each stream's creation time as last seen: another time means NATS lost it and it was made again */
  private readonly created = new Map<string, string>()
  private readonly followings: Following[] = []
  private recovering: Promise<void> | null = null
  /** streams made again that not every follower has consumers of yet */
  private readonly unfollowed = new Set<string>()
  /** what the next recovery pass is for, gathered from the triggers since the last one */
  private reconnected = false
  private recoverAgain = false
  private lastCheck = 0

  constructor(
    private readonly servers: string,
    readonly prefix: string,
    private readonly logger: Logger,
    readonly node: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.ready = this.start()
    this.ready.catch(() => {})
  }

  private get streams() {
    return streamNames(this.prefix)
  }

  private async start(): Promise<void> {
    // keeps trying until the first connection succeeds, and reconnects for ever: a node never gives up on NATS
    const nc = await connect({
      servers: this.servers.split(',').map((s) => s.trim()),
      name: `perp-analytics ${this.node}`,
      waitOnFirstConnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      pingInterval: PING_INTERVAL_MS,
      maxPingOut: MAX_PING_OUT,
    })
    if (this.closed) {
      await nc.close()
      return
    }
    this.nc = nc
    this.connected = true
    this.js = jetstream(nc)
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect') {
          this.connected = false
          this.logger.warn('bus disconnected: serving from the store until NATS is back')
        } else if (s.type === 'reconnect') {
          this.connected = true
          this.logger.info('bus reconnected')
          void this.recover({ reconnected: true })
        }
      }
    })().catch(() => {})
    void nc.closed().then(() => (this.connected = false))
    await this.ensureStreamsRetrying(false)
    this.logger.info({ servers: this.servers, prefix: this.prefix }, 'bus connected (NATS JetStream)')
  }

  /** make every stream that does not exist; returns those that are not the ones this node saw before */
  private async ensureStreams(): Promise<Set<string>> {
    const recreated = new Set<string>()
    for (const [name, created] of await ensureStreams(this.nc!, this.prefix, this.clock())) {
      const before = this.created.get(name)
      if (before !== undefined && before !== created) recreated.add(name)
      this.created.set(name, created)
    }
    if (recreated.size) this.logger.warn({ streams: [...recreated] }, 'bus: NATS had lost these streams; they were made again')
    return recreated
  }

  /**
   * Until the streams exist (JetStream may answer only a moment after the server comes back). `whileConnected`: give
   * up (null) when the connection drops meanwhile, the next reconnect tries again; otherwise wait for it.
   */
  private async ensureStreamsRetrying(whileConnected: boolean): Promise<Set<string> | null> {
    let warned = false
    while (!this.closed) {
      if (!this.connected && whileConnected) return null
      try {
        if (this.connected) return await this.ensureStreams()
      } catch (err) {
        if (!warned) this.logger.warn({ err }, 'bus: the streams cannot be made yet; trying again every second')
        warned = true
      }
      await new Promise((r) => setTimeout(r, RETRY_MS))
    }
    return null
  }

  /**
   * NATS is back (or a stream went missing): make sure the streams exist, then make the followers' consumers anew
   * (a consumer of a lost stream would wait for its next sequence number, which the new one reaches only after as
   * many messages). One at a time; a trigger during one runs another after it, and a
   * consumer that cannot be made yet is tried again a second later.
   */
  recover(why: { reconnected?: boolean } = {}): Promise<void> {
    this.reconnected ||= why.reconnected === true
    if (this.recovering) {
      this.recoverAgain = true
      return this.recovering
    }
    this.recovering = (async () => {
      do {
        this.recoverAgain = false
        const recreated = await this.ensureStreamsRetrying(true)
        if (!recreated) return // disconnected again: the next reconnect recovers (what is pending stays pending)
        if (recreated.size) this.stats.streamsRecreated++
        // kept until every follower has started on the new streams
        for (const s of recreated) this.unfollowed.add(s)
        const pass: Recovery = { recreated: new Set(this.unfollowed), reconnected: this.reconnected }
        this.reconnected = false
        let failed = false
        for (const f of this.followings)
          await f.start(pass).catch((err: unknown) => {
            failed = true
            this.logger.warn({ err }, 'bus: a consumer could not be made again; retrying')
          })
        if (failed) {
          this.recoverAgain = true
          await new Promise((r) => setTimeout(r, RETRY_MS))
        } else this.unfollowed.clear()
      } while (this.recoverAgain && !this.closed)
    })().finally(() => (this.recovering = null))
    return this.recovering
  }

  /** resolves once connected and the streams exist (waits for NATS if it is down) */
  whenReady(): Promise<void> {
    return this.ready
  }

  /** a publish failed while connected: the stream may be gone (NATS restarted), so look, at most every few seconds */
  private failed(): void {
    this.stats.publishFailures++
    const now = Date.now()
    if (!this.connected || this.closed || now - this.lastCheck < CHECK_AFTER_FAILURE_MS) return
    this.lastCheck = now
    void this.recover()
  }

  publishLive(e: LiveEvent): void {
    if (!this.nc || !this.connected) return
    try {
      this.nc.publish(`${this.prefix}.live.${e.exchange}.${subjectToken(e.coin)}.${e.marketType}.${KIND_TOKEN[e.type]}`, this.enc.encode(JSON.stringify(e)))
      this.stats.published++
    } catch {
      this.stats.publishFailures++
    }
  }

  publishStatus(s: StatusMessage): void {
    if (!this.nc || !this.connected) return
    try {
      this.nc.publish(`${this.prefix}.live._status.${subjectToken(s.node)}`, this.enc.encode(JSON.stringify(s)))
      this.stats.published++
    } catch {
      this.stats.publishFailures++
    }
  }

  /** acknowledged by the stream; a failure (NATS down, no stream, timeout) is counted and logged, never thrown */
  async publishData(m: DataMessage): Promise<boolean> {
    if (!this.js || !this.connected) {
      this.stats.publishFailures++
      return false
    }
    try {
      await this.js.publish(`${this.prefix}.data`, this.enc.encode(JSON.stringify(m)), { timeout: 2000 })
      this.stats.published++
      return true
    } catch (err) {
      this.failed()
      this.logger.warn({ err }, 'bus: data message not acknowledged (API nodes see the gap and reload from the store)')
      return false
    }
  }

  /** a push-channel event: numbered by the stream, deduplicated on its key */
  publishPush(e: StreamDraft, key: string): void {
    if (!this.js || !this.connected) return
    this.js.publish(`${this.prefix}.push.${e.channel}`, this.enc.encode(JSON.stringify(e)), { msgID: key, timeout: 2000 }).then(
      () => this.stats.published++,
      () => this.failed(),
    )
  }

  /** consume with `onMsg` until stopped; a consumer that loses its stream, or ends by itself, starts a recovery */
  private pump(msgs: ConsumerMessages, what: string, onMsg: (subject: string, seq: number, body: unknown) => void, { current, ended }: Consuming): void {
    void (async () => {
      for await (const s of msgs.status()) if (s.type === 'stream_not_found' && current()) void this.recover()
    })().catch(() => {})
    void (async () => {
      for await (const m of msgs) {
        if (!current()) continue // a message the stopped consumer still held: the new one brings it again
        this.stats.received++
        try {
          onMsg(m.subject, m.seq, JSON.parse(this.dec.decode(m.data)))
        } catch (err) {
          this.logger.warn({ err, subject: m.subject }, `bus: ${what} message not applied`)
        }
      }
    })()
      .catch((err: unknown) => this.logger.error({ err }, `bus: ${what} consumer stopped`))
      .finally(() => {
        ended()
      })
  }

  /**
   * A follower: `make` makes its consumers (`streams`: the streams they read), and makes them again after every
   * reconnect (a consumer left to resume on its own can stall until its pending pull expires, 30 s, or for good) and
   * when one of those streams was made again. Started at once.
   */
  private async following(streams: readonly string[], make: (c: Consuming) => Promise<ConsumerMessages[]>): Promise<void> {
    await this.ready
    let generation = 0
    let running: ConsumerMessages[] = []
    // never started, or its last consumers failed or ended: made again on the next recovery pass whatever its cause
    let broken = true
    const f: Following = {
      start: async (why) => {
        if (!broken && !why.reconnected && !streams.some((s) => why.recreated.has(s))) return
        f.stop()
        const mine = ++generation
        const current = () => mine === generation && !this.closed
        broken = true
        running = await make({
          current,
          ended: () => {
            if (!current()) return
            broken = true
            void this.recover()
          },
        })
        broken = false
      },
      stop: () => {
        generation++
        for (const m of running) void m.close().catch(() => {})
        running = []
      },
    }
    this.followings.push(f)
    await f.start({ recreated: new Set(), reconnected: false }).catch((err: unknown) => {
      this.logger.warn({ err }, 'bus: a consumer could not be made; retrying')
      void this.recover()
    })
  }

  /** every retained push event, then each new one, with the stream's sequence number as its id */
  async followPush(onEvent: (e: StreamEvent) => void): Promise<void> {
    const { push } = this.streams
    let last = 0
    let stream = ''
    await this.following([push], async (c) => {
      // made again for a stream NATS lost: from its start (its ids are higher); otherwise from the next event on
      const same = last > 0 && stream === this.created.get(push)
      stream = this.created.get(push) ?? ''
      const msgs = await (await this.js!.consumers.get(push, same ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: last + 1 } : { deliver_policy: DeliverPolicy.All })).consume()
      this.pump(msgs, 'push', (_subject, seq, body) => {
        last = seq
        onEvent({ ...(body as StreamDraft), id: seq })
      }, c)
      return [msgs]
    })
  }

  /**
   * Follow the bus: the last live message of every subject first, then whatever comes; data messages from the
   * next one on. `handlers.resync()` runs once the consumers are in place (the caller reloads from the store then,
   * so nothing written between its load and the subscription is missed), each time they are made again, and after
   * every reconnect.
   */
  async follow(handlers: BusHandlers): Promise<void> {
    const { live, data } = this.streams
    const statusPrefix = `${this.prefix}.live._status.`
    await this.following(
      [live, data],
      async (c) => {
        const js = this.js!
        const liveConsumer = await js.consumers.get(live, { filter_subjects: `${this.prefix}.live.>`, deliver_policy: DeliverPolicy.LastPerSubject })
        const dataConsumer = await js.consumers.get(data, { deliver_policy: DeliverPolicy.New })
        // both consumers exist on the server before resync() reloads from the store: nothing falls in between
        const liveMsgs = await liveConsumer.consume()
        const dataMsgs = await dataConsumer.consume()
        this.pump(liveMsgs, 'live', (subject, _seq, body) => (subject.startsWith(statusPrefix) ? handlers.status(body as StatusMessage) : handlers.live(body as LiveEvent)), c)
        this.pump(dataMsgs, 'data', (_subject, _seq, body) => handlers.data(body as DataMessage), c)
        handlers.resync()
        return [liveMsgs, dataMsgs]
      },
    )
  }

  async close(): Promise<void> {
    this.closed = true
    for (const f of this.followings) f.stop()
    const nc = this.nc
    this.nc = null
    this.connected = false
    if (nc) await nc.drain().catch(() => nc.close())
  }
}
