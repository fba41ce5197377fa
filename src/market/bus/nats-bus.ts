// The bus on NATS JetStream (the official @nats-io clients). Two streams per deployment (BUS_PREFIX):
//   <P>_LIVE  subjects <p>.live.<venue>.<coin>.<marketType>.<ticker|oi|book> and <p>.live._status.<node>; memory
//             storage, the last message per subject only, 10 minutes at most: a last-value cache that an API node
//             starting (or reconnecting) reads at once, then follows.
//   <P>_DATA  subject <p>.data: one message per store write (rows for the hot series, kinds of data changed);
//             memory storage, 15 minutes and 256 MB at most: an API node that was cut off for less catches up.
//   <P>_PUSH  subjects <p>.push.<channel>: the push channels (GET /v1/stream, alerts); memory storage, 15 minutes
//             and 256 MB at most; its sequence numbers are the events' ids on every API node, and each event
//             carries a deduplication id (Nats-Msg-Id) so a hot standby or a second API node computing the same
//             signal adds nothing.
// Live events go out as core publishes (captured by the stream; no acknowledgement awaited on the hot path);
// data messages are JetStream publishes, acknowledged: a failure is counted and the API nodes resynchronise
// from the store on their next reconnect. NATS down: ingest keeps writing the store (the bus is not in its write
// path); API nodes serve from PostgreSQL, tickers older than the stale limit flagged `stale`.
import { connect, type NatsConnection } from '@nats-io/transport-node'
import { DeliverPolicy, DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType, type JetStreamClient, type StreamConfig } from '@nats-io/jetstream'
import type { Logger } from 'pino'
import type { StreamDraft, StreamEvent } from '../stream/hub.js'
import { subjectToken, type DataMessage, type LiveEvent, type StatusMessage } from './messages.js'

const KIND_TOKEN = { ticker: 'ticker', open_interest: 'oi', book: 'book' } as const
const SECOND_NS = 1_000_000_000

export interface BusHandlers {
  live(e: LiveEvent): void
  status(s: StatusMessage): void
  data(m: DataMessage): void
  /** the connection was (re)established after a gap: state built from the bus may have missed messages */
  resync(): void
}

export interface BusStats {
  published: number
  publishFailures: number
  received: number
}

export class NatsBus {
  private nc: NatsConnection | null = null
  private js: JetStreamClient | null = null
  private ready: Promise<void>
  private closed = false
  private readonly enc = new TextEncoder()
  private readonly dec = new TextDecoder()
  readonly stats: BusStats = { published: 0, publishFailures: 0, received: 0 }
  /** connected to NATS now */
  connected = false

  constructor(
    private readonly servers: string,
    readonly prefix: string,
    private readonly logger: Logger,
    readonly node: string,
  ) {
    this.ready = this.start()
    this.ready.catch(() => {})
  }

  private get streams() {
    const up = this.prefix.toUpperCase().replace(/-/g, '_')
    return { live: `${up}_LIVE`, data: `${up}_DATA`, push: `${up}_PUSH` }
  }

  private async start(): Promise<void> {
    // keeps trying until the first connection succeeds, and reconnects for ever: a node never gives up on NATS
    const nc = await connect({ servers: this.servers.split(',').map((s) => s.trim()), name: `perp-analytics ${this.node}`, waitOnFirstConnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 1000 })
    if (this.closed) {
      await nc.close()
      return
    }
    this.nc = nc
    this.connected = true
    this.js = jetstream(nc)
    await this.ensureStreams()
    this.logger.info({ servers: this.servers, prefix: this.prefix }, 'bus connected (NATS JetStream)')
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect') {
          this.connected = false
          this.logger.warn('bus disconnected: serving from the store until NATS is back')
        } else if (s.type === 'reconnect') {
          this.connected = true
          this.logger.info('bus reconnected')
          for (const h of this.followers) h.resync()
        }
      }
    })().catch(() => {})
    void nc.closed().then(() => (this.connected = false))
  }

  private async ensureStreams(): Promise<void> {
    const jsm = await jetstreamManager(this.nc!)
    const { live, data, push } = this.streams
    const configs: (Partial<StreamConfig> & { name: string })[] = [
      { name: live, subjects: [`${this.prefix}.live.>`], storage: StorageType.Memory, retention: RetentionPolicy.Limits, max_msgs_per_subject: 1, max_age: 600 * SECOND_NS, discard: DiscardPolicy.Old },
      { name: data, subjects: [`${this.prefix}.data`], storage: StorageType.Memory, retention: RetentionPolicy.Limits, max_age: 900 * SECOND_NS, max_bytes: 256 * 1024 * 1024, discard: DiscardPolicy.Old },
      { name: push, subjects: [`${this.prefix}.push.>`], storage: StorageType.Memory, retention: RetentionPolicy.Limits, max_age: 900 * SECOND_NS, max_bytes: 256 * 1024 * 1024, discard: DiscardPolicy.Old, duplicate_window: 120 * SECOND_NS },
    ]
    for (const cfg of configs) {
      try {
        await jsm.streams.info(cfg.name)
      } catch {
        // created by whichever node comes first; a concurrent creation of the same stream is fine
        await jsm.streams.add(cfg).catch(async (e: unknown) => {
          if (!(await jsm.streams.info(cfg.name).then(() => true, () => false))) throw e
        })
      }
    }
  }

  /** resolves once connected and the streams exist (waits for NATS if it is down) */
  whenReady(): Promise<void> {
    return this.ready
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

  /** acknowledged by the stream; a failure (NATS down, timeout) is counted and logged, never thrown */
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
      this.stats.publishFailures++
      this.logger.warn({ err }, 'bus: data message not acknowledged (API nodes resynchronise from the store when the bus is back)')
      return false
    }
  }

  /** a push-channel event: numbered by the stream, deduplicated on its key */
  publishPush(e: StreamDraft, key: string): void {
    if (!this.js || !this.connected) return
    this.js.publish(`${this.prefix}.push.${e.channel}`, this.enc.encode(JSON.stringify(e)), { msgID: key, timeout: 2000 }).then(
      () => this.stats.published++,
      () => this.stats.publishFailures++,
    )
  }

  /** every retained push event, then each new one, with the stream's sequence number as its id */
  async followPush(onEvent: (e: StreamEvent) => void): Promise<void> {
    await this.ready
    const consumer = await this.js!.consumers.get(this.streams.push, { deliver_policy: DeliverPolicy.All })
    const msgs = await consumer.consume()
    void (async () => {
      for await (const m of msgs) {
        this.stats.received++
        try {
          onEvent({ ...(JSON.parse(this.dec.decode(m.data)) as StreamDraft), id: m.seq })
        } catch (err) {
          this.logger.warn({ err }, 'bus: push event not applied')
        }
      }
    })().catch((err: unknown) => this.logger.error({ err }, 'bus: push consumer stopped'))
  }

  private readonly followers: BusHandlers[] = []

  /**
   * Follow the bus: the last live message of every subject first, then whatever comes; data messages from the
   * next one on. `handlers.resync()` runs once the data consumer is in place (the caller reloads from the store
   * then, so nothing written between its load and the subscription is missed) and after every reconnect.
   */
  async follow(handlers: BusHandlers): Promise<void> {
    await this.ready
    const js = this.js!
    const { live, data } = this.streams
    this.followers.push(handlers)
    const liveConsumer = await js.consumers.get(live, { filter_subjects: `${this.prefix}.live.>`, deliver_policy: DeliverPolicy.LastPerSubject })
    const dataConsumer = await js.consumers.get(data, { deliver_policy: DeliverPolicy.New })
    // both consumers exist on the server before resync() reloads from the store: nothing falls in between
    const liveMsgs = await liveConsumer.consume()
    const dataMsgs = await dataConsumer.consume()
    const pump = async (msgs: typeof liveMsgs, onMsg: (subject: string, body: unknown) => void) => {
      for await (const m of msgs) {
        this.stats.received++
        try {
          onMsg(m.subject, JSON.parse(this.dec.decode(m.data)))
        } catch (err) {
          this.logger.warn({ err, subject: m.subject }, 'bus: message not applied')
        }
      }
    }
    const statusPrefix = `${this.prefix}.live._status.`
    void pump(liveMsgs, (subject, body) => (subject.startsWith(statusPrefix) ? handlers.status(body as StatusMessage) : handlers.live(body as LiveEvent))).catch((err: unknown) =>
      this.logger.error({ err }, 'bus: live consumer stopped'),
    )
    void pump(dataMsgs, (_subject, body) => handlers.data(body as DataMessage)).catch((err: unknown) => this.logger.error({ err }, 'bus: data consumer stopped'))
    handlers.resync()
  }

  async close(): Promise<void> {
    this.closed = true
    const nc = this.nc
    this.nc = null
    this.connected = false
    if (nc) await nc.drain().catch(() => nc.close())
  }
}
