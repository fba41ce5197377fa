// The `stream` subscription: the push channels of GET /v1/stream over GraphQL (yoga answers a subscription with
// Server-Sent Events when the client accepts text/event-stream). Metered the same way: 1 credit per channel per
// minute, taken as each minute starts; a minute that cannot be paid ends the subscription with a final `end` event,
// and so does a graceful shutdown (SIGTERM), after which the subscription completes.
import { invalidParameter } from '../../errors.js'
import { STREAM_CHANNELS, type StreamEvent } from '../../market/stream/hub.js'
import { builder } from '../builder.js'
import type { RequestContext } from '../context.js'
import { chargeStreamMinute } from '../stream-meter.js'

const COMPUTED = new Set(['imbalance', 'divergence', 'regime'])

const StreamChannelEnum = builder.enumType('StreamChannel', {
  description: 'a push channel',
  values: Object.fromEntries(STREAM_CHANNELS.map((c) => [c.toUpperCase(), { value: c }])) as Record<string, { value: (typeof STREAM_CHANNELS)[number] }>,
})

type Pushed = Pick<StreamEvent, 'coin' | 'ts' | 'data'> & { id: number | null; channel: string }

const StreamEventRef = builder.objectRef<Pushed>('StreamEvent').implement({
  description: 'one push event: its id (pass the last one seen as lastEventId to resume), channel, coin and payload (REST field names); channel "end" closes the stream',
  fields: (t) => ({
    id: t.string({ nullable: true, resolve: (e) => (e.id === null ? null : String(e.id)) }),
    channel: t.exposeString('channel'),
    coin: t.exposeString('coin', { nullable: true }),
    ts: t.field({ type: 'Timestamp', resolve: (e) => e.ts }),
    data: t.field({ type: 'JSON', resolve: (e) => e.data }),
  }),
})

async function* streamOf(ctx: RequestContext, args: { channels: readonly (typeof STREAM_CHANNELS)[number][]; coins?: readonly string[] | null; lastEventId?: string | null }): AsyncGenerator<Pushed> {
  const { services } = ctx
  const hub = services.market.stream
  const channels = [...new Set(args.channels)]
  if (!channels.length) throw invalidParameter('channels', 'Name at least one channel.', STREAM_CHANNELS)
  const known = services.market.coins()
  const coins = args.coins?.length ? args.coins.map((c) => c.toUpperCase()) : null
  for (const c of coins ?? []) if (!known.includes(c)) throw invalidParameter('coins', `Unknown coin "${c.slice(0, 50)}".`, known)
  if (args.lastEventId != null && !/^\d{1,15}$/.test(args.lastEventId)) throw invalidParameter('lastEventId', 'The last event id must be the id of an event this stream sent.')
  const principal = await ctx.requirePrincipal()
  /** the stream's last event: why it ends */
  const end = (data: Record<string, unknown>): Pushed => ({ id: null, channel: 'end', coin: '', ts: services.clock(), data })
  // this node is stopping: the last event at once, nothing charged
  if (hub.closing) return yield end({ ...hub.closing })
  const cost = channels.length
  const first = await chargeStreamMinute(services, principal, cost, ctx.requestId)
  if (!first.ok) throw first.error

  const queue: Pushed[] = []
  let wake: (() => void) | null = null
  const push = (e: Pushed) => {
    queue.push(e)
    wake?.()
  }
  let lastSent = args.lastEventId != null ? Number(args.lastEventId) : hub.lastId()
  const wanted = (e: StreamEvent) => channels.includes(e.channel) && (!coins || coins.includes(e.coin))
  const unsubscribe = hub.subscribe((e) => wanted(e) && push(e))
  if (args.lastEventId != null) for (const e of hub.since(channels, lastSent)) if (wanted(e)) queue.push(e)
  const computed = channels.filter((c) => COMPUTED.has(c))
  const release = computed.length ? hub.want(computed, coins) : () => {}
  let ended = false
  // graceful shutdown: a last `end` event, then the subscription completes (clients resume elsewhere with lastEventId)
  const unclose = hub.onClose((why) => push(end({ ...why })))
  const minute = setInterval(() => {
    void chargeStreamMinute(services, principal, cost, ctx.requestId).then(
      (r) => {
        if (!r.ok) push(end({ reason: r.error.code, detail: r.error.message, credits_remaining: r.remaining }))
      },
      () => push(end({ reason: 'unavailable', detail: 'The credit store could not be reached; nothing was charged for this minute.' })),
    )
  }, services.config.STREAM_MINUTE_MS)
  try {
    while (!ended) {
      if (!queue.length) await new Promise<void>((r) => (wake = r))
      wake = null
      for (const e of queue.splice(0)) {
        if (e.channel === 'end') {
          ended = true
          yield e
          break
        }
        if (e.id !== null && e.id <= lastSent) continue
        lastSent = e.id ?? lastSent
        yield e
      }
    }
  } finally {
    clearInterval(minute)
    unclose()
    unsubscribe()
    release()
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
      lastEventId: t.arg.string({ required: false, description: 'resume after this event id (within the retention: 15 minutes)' }),
    },
    subscribe: (_root, args, ctx) => streamOf(ctx, args),
    resolve: (e) => e,
  }),
)
