// The computed push channels: imbalance, divergence and regime per coin, and the funding z-score the alert rules
// read, each computed by running the endpoint's own stored operation (the same answer the REST path gives, in its
// field names) every PUSH_SIGNAL_MS (10 s) — only for the coins a stream or an alert rule follows right now.
import { execute, type GraphQLSchema } from 'graphql'
import { ENDPOINTS } from '../endpoints/index.js'
import { createContext } from '../graphql/context.js'
import type { StreamChannel } from '../read/stream/hub.js'
import { snakeKeys } from '../rest/envelope.js'
import { loadOperation } from '../rest/shim.js'
import type { Services } from '../services.js'

/** the computed kinds: the three channels, and funding (read by alert rules only) */
export type SignalKind = Extract<StreamChannel, 'imbalance' | 'divergence' | 'regime'> | 'funding'
const FIELD: Record<SignalKind, string> = { imbalance: 'imbalance', divergence: 'divergence', regime: 'regime', funding: 'weightedFunding' }

export interface SignalSource {
  /** one coin's current value of a kind (REST field names), computed now */
  compute(kind: SignalKind, coin: string): Promise<Record<string, unknown> | null>
  /** run one round now (tests; the timer runs it every PUSH_SIGNAL_MS) */
  tick(): Promise<void>
  /** told of every computed value with the slot it was computed for (alert rules) */
  onValue: ((kind: SignalKind, coin: string, data: Record<string, unknown>, slot: number) => void) | null
  /** no more rounds; resolves when the round in progress, if any, has finished */
  stop(): Promise<void>
}

export function signalSource(services: Services, schema: GraphQLSchema): SignalSource {
  const ops = new Map<SignalKind, { document: NonNullable<ReturnType<typeof loadOperation>> }>()
  for (const kind of Object.keys(FIELD) as SignalKind[]) {
    const route = ENDPOINTS.find((e) => e.field === FIELD[kind])
    const document = route ? loadOperation(route, schema) : null
    if (document) ops.set(kind, { document })
  }
  let running: Promise<void> | null = null

  const compute = async (kind: SignalKind, coin: string) => {
    const op = ops.get(kind)
    if (!op) return null
    const ctx = createContext(services, { requestId: `push-${kind}-${coin}`, authorization: undefined })
    const result = await execute({ schema, document: op.document, contextValue: ctx, variableValues: { coin } })
    const value = (result.data as Record<string, unknown> | null | undefined)?.[FIELD[kind]]
    const one = Array.isArray(value) ? value[0] : value
    return one && typeof one === 'object' ? (snakeKeys(one) as Record<string, unknown>) : null
  }

  const round = async () => {
    // the kinds and coins streams and alert rules follow right now (StreamHub.want)
    const todo = new Map<SignalKind, Iterable<string>>()
    for (const [k, coins] of services.market.stream.wanted()) if (k in FIELD) todo.set(k as SignalKind, coins ?? services.market.listedCoins())
    // computed events are dated by their slot, so nodes computing the same slot publish one event (eventKey)
    const every = services.config.PUSH_SIGNAL_MS
    const now = Math.floor(services.clock() / every) * every
    for (const [kind, coins] of todo)
      for (const coin of coins) {
        const data = await compute(kind, coin).catch((err: unknown) => {
          services.logger.warn({ err, kind, coin }, 'push: a signal could not be computed')
          return null
        })
        if (!data) continue
        src.onValue?.(kind, coin, data, now)
        if (kind !== 'funding') services.market.stream.publish({ channel: kind, coin, ts: now, data })
      }
  }

  let stopped = false
  const tick = () => (stopped ? Promise.resolve() : (running ??= round().finally(() => (running = null))))
  // a round that throws (a stream or alert subscriber, say) is logged: left unhandled, the rejection the .finally
  // chain carries on would end the process; the next round runs as usual
  const timer = setInterval(() => void tick().catch((err: unknown) => services.logger.error({ err }, 'push: a signal round failed')), services.config.PUSH_SIGNAL_MS)
  timer.unref()

  const src: SignalSource = {
    compute,
    tick,
    onValue: null,
    stop: async () => {
      stopped = true
      clearInterval(timer)
      await running?.catch(() => {})
    },
  }
  return src
}
