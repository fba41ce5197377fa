// The `stream` subscription: the push channels of GET /v1/stream over GraphQL (yoga answers a subscription with
// Server-Sent Events when the client accepts text/event-stream). Metered the same way: 1 credit per channel per
// minute, taken as each minute starts; a minute that cannot be paid ends the subscription with a final `end` event,
// and so does a graceful shutdown (SIGTERM), after which the subscription completes. Bounded the same way too: the
// replay, the unsent bytes per reader, the streams per key and account (src/graphql/stream-bounds.ts, stream-slots.ts).
import type { Principal } from '../../accounts/authenticate.js'
import { invalidParameter } from '../../errors.js'
import { STREAM_CHANNELS, type StreamChannel, type StreamEvent } from '../../read/stream/hub.js'
import { builder } from '../builder.js'
import type { RequestContext } from '../context.js'
import { toGraphQLError } from '../errors.js'
import { boundedReplay, closeWithinGrace, slowReader, sseFrame } from '../stream-bounds.js'
import { chargeStreamMinute } from '../stream-meter.js'

const COMPUTED = new Set(['imbalance', 'divergence', 'regime'])

const StreamChannelEnum = builder.enumType('StreamChannel', {
  description: 'a push channel',
  values: Object.fromEntries(STREAM_CHANNELS.map((c) => [c.toUpperCase(), { value: c }])) as Record<string, { value: (typeof STREAM_CHANNELS)[number] }>,
})

type Pushed = Pick<StreamEvent, 'coin' | 'ts' | 'data'> & { id: number | null; channel: string }

const StreamEventRef = builder.objectRef<Pushed>('StreamEvent').implement({
  description: 'one push event: its id (pass the last one seen as lastEventId to resume), channel, coin and payload (REST field names); channel "end" closes the stream (data.reason says why), channel "replay_truncated" (id null) opens a resumed stream whose replay left older events out',
  fields: (t) => ({
    id: t.string({ nullable: true, resolve: (e) => (e.id === null ? null : String(e.id)) }),
    channel: t.exposeString('channel'),
    coin: t.exposeString('coin', { nullable: true }),
    ts: t.field({ type: 'Timestamp', resolve: (e) => e.ts }),
    data: t.field({ type: 'JSON', resolve: (e) => e.data }),
  }),
})

/** what GET /v1/stream answers with a status refuses the whole subscription with that HTTP status (yoga sends it) */
const refuse = (e: unknown) => toGraphQLError(e, { httpStatus: true })

/**
 * Everything that can refuse the subscription runs before its event stream is returned, so yoga answers the
 * request with the refusal's status (401 for a wrong key, counted like REST's; 429 past a cap; 402) instead of
 * a 200 carrying an error. Argument errors stay inside the accepted stream (200), as GraphQL over SSE asks.
 */
async function streamOf(ctx: RequestContext, args: { channels: readonly (typeof STREAM_CHANNELS)[number][]; coins?: readonly string[] | null; lastEventId?: string | null }): Promise<AsyncIterable<Pushed>> {
  const { services } = ctx
  const hub = services.market.stream
  const principal = await ctx.requirePrincipal().catch((e: unknown) => Promise.reject(refuse(e)))
  const channels = [...new Set(args.channels)]
  if (!channels.length) throw invalidParameter('channels', 'Name at least one channel.', STREAM_CHANNELS)
  const known = services.market.coins()
  const coins = args.coins?.length ? args.coins.map((c) => c.toUpperCase()) : null
  for (const c of coins ?? []) if (!known.includes(c)) throw invalidParameter('coins', `Unknown coin "${c.slice(0, 50)}".`, known)
  if (args.lastEventId != null && !/^\d{1,15}$/.test(args.lastEventId)) throw invalidParameter('lastEventId', 'The last event id must be the id of an event this stream sent.')
  /** the stream's last event: why it ends */
  const end = (data: Record<string, unknown>): Pushed => ({ id: null, channel: 'end', coin: '', ts: services.clock(), data })
  // this node is stopping: the last event at once, nothing charged
  if (hub.closing) return (async function* () { yield end({ ...hub.closing! }) })()
  const cost = channels.length
  const giveSlot = await services.streams.take(principal).catch((e: unknown) => Promise.reject(refuse(e)))
  // a client gone before yoga starts reading the stream would never run its generator: the slot goes back here
  ctx.res?.once('close', giveSlot)
  if (ctx.res?.destroyed || ctx.res?.socket?.destroyed) giveSlot()
  const first = await chargeStreamMinute(services, principal, cost, ctx.requestId).catch((e: unknown) => ({ ok: false as const, error: e }))
  if (!first.ok) {
    giveSlot()
    throw refuse(first.error)
  }
  return follow(ctx, { channels, coins, lastEventId: args.lastEventId == null ? null : Number(args.lastEventId), cost, end, giveSlot, principal })
}

async function* follow(
  ctx: RequestContext,
  o: { channels: StreamChannel[]; coins: string[] | null; lastEventId: number | null; cost: number; end: (data: Record<string, unknown>) => Pushed; giveSlot: () => void; principal: Principal },
): AsyncGenerator<Pushed> {
  const { services, res } = ctx
  const { config } = services
  const hub = services.market.stream
  const { channels, coins, end } = o
  /** each with its size as GET /v1/stream's frame: with yoga's buffer, what the reader has left unsent */
  const queue: { e: Pushed; bytes: number }[] = []
  let queued = 0
  let wake: (() => void) | null = null
  // what the stream holds, let go by detach(); what is taken after detach() ran (an end during set-up) goes at once
  const held: (() => void)[] = [o.giveSlot]
  let detached = false
  const hold = (letGo: () => void) => (detached ? letGo() : held.push(letGo))
  const detach = () => {
    if (detached) return
    detached = true
    for (const letGo of held) letGo()
  }
  /** an `end` is queued: nothing more is, the stream lets go of what it holds, and the client has the grace to read it */
  let last = false
  const push = (e: Pushed, bytes = 0) => {
    if (last) return
    queue.push({ e, bytes })
    queued += bytes
    wake?.()
    if (e.channel !== 'end') return
    last = true
    detach()
    if (res) closeWithinGrace(res)
  }
  let lastSent = o.lastEventId ?? hub.lastId()
  const wanted = (e: StreamEvent) => channels.includes(e.channel) && (!coins || coins.includes(e.coin))
  hold(
    hub.subscribe((e) => {
      if (last || !wanted(e)) return
      const bytes = sseFrame(e).length
      if (queued + bytes + (res?.writableLength ?? 0) <= config.STREAM_BUFFER_BYTES) return push(e, bytes)
      // a reader this far behind is dropped; what waits is let go (it resumes from the last id it got)
      queue.length = 0
      queued = 0
      push(end(slowReader(config)))
    }),
  )
  if (o.lastEventId !== null) {
    const replay = boundedReplay(hub, channels, coins, o.lastEventId, config)
    if (replay.truncated) push({ id: null, channel: 'replay_truncated', coin: '', ts: services.clock(), data: replay.truncated })
    for (const { e, frame } of replay.events) push(e, frame.length)
  }
  const computed = channels.filter((c) => COMPUTED.has(c))
  if (computed.length) hold(hub.want(computed, coins))
  const minute = setInterval(() => {
    void chargeStreamMinute(services, o.principal, o.cost, ctx.requestId).then(
      (r) => {
        if (!r.ok) push(end({ reason: r.error.code, detail: r.error.message, credits_remaining: r.remaining }))
      },
      () => push(end({ reason: 'unavailable', detail: 'The credit store could not be reached; nothing was charged for this minute.' })),
    )
  }, config.STREAM_MINUTE_MS)
  hold(() => clearInterval(minute))
  let closed = false
  // the connection gone: everything is let go now, even when yoga, waiting on the socket, never pulls again
  const gone = () => {
    closed = true
    detach()
    wake?.()
  }
  res?.once('close', gone)
  hold(() => res?.off('close', gone))
  // graceful shutdown: a last `end` event, then the subscription completes (clients resume elsewhere with lastEventId)
  hold(hub.onClose((why) => push(end({ ...why }))))
  try {
    while (!closed) {
      if (!queue.length) await new Promise<void>((r) => (wake = r))
      wake = null
      for (const { e, bytes } of queue.splice(0)) {
        queued -= bytes
        if (closed) return
        if (e.channel === 'end') return yield e
        if (e.id !== null && e.id <= lastSent) continue
        lastSent = e.id ?? lastSent
        yield e
      }
    }
  } finally {
    detach()
  }
}

builder.subscriptionType({})
builder.subscriptionField('stream', (t) =>
  t.field({
    type: StreamEventRef,
    description: 'Push events of the channels asked for (the GET /v1/stream channels): 1 credit per channel per minute, taken as each minute starts.',
    args: {
      channels: t.arg({ type: [StreamChannelEnum], required: true }),
      coins: t.arg.stringList({ required: false, description: 'base-asset symbols; omitted = every coin' }),
      lastEventId: t.arg.string({ required: false, description: 'resume after this event id: the newest retained events after it (kept 15 minutes; at most 1,000 and 256 KiB replayed)' }),
    },
    subscribe: (_root, args, ctx) => streamOf(ctx, args),
    resolve: (e) => e,
  }),
)
