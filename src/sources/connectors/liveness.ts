// The liveness of a venue's liquidation stream, from the connection and subscription state, never from data (a quiet
// stream is up): up while the loops reading it are not backing off after a failure and a connected CCXT WebSocket
// client holds its subscription. CCXT drops a client whose connection closed or failed (Exchange.onClose/onError), and
// a new one is connected only once its socket opened (WsClient.onOpen sets isConnected).
import type { Exchange } from 'ccxt'
import type { Supervisor } from './supervisor.js'

/** where a venue's liquidation stream lives: the CCXT instance, which of its subscriptions carry it, which loops read it */
export interface LiquidationStream {
  ex: Exchange
  subscription: RegExp
  loops: RegExp
}

interface WsClientState {
  isConnected?: boolean
  subscriptions?: Record<string, unknown>
}

/** the stream's loops run (none backing off) and a connected client holds its subscription */
function streamUp(run: Supervisor, s: LiquidationStream): boolean {
  if (run.stopped) return false
  const loops = [...run.loops].filter((n) => s.loops.test(n))
  if (!loops.length || loops.some((n) => run.backingOff.has(n))) return false
  const clients = Object.values((s.ex as unknown as { clients?: Record<string, WsClientState> }).clients ?? {})
  return clients.some((c) => c.isConnected === true && Object.keys(c.subscriptions ?? {}).some((k) => s.subscription.test(k)))
}

/**
 * Probes the stream every `everyMs` and reports each change (`report(up)`), the first up included; when the run stops,
 * a stream that was up is reported down.
 */
export function watchLiveness(run: Supervisor, s: LiquidationStream | null, everyMs: number, report: (up: boolean) => void): void {
  if (!s) return
  let up = false
  const probe = () => {
    const now = streamUp(run, s)
    if (now !== up) report((up = now))
  }
  const timer = setInterval(probe, everyMs)
  timer.unref()
  run.onStop(() => {
    clearInterval(timer)
    if (up) report((up = false))
  })
}
