// Small doors into a CCXT instance: merging an option, calling an implicit (raw endpoint) method, finding a market.
import type { Exchange, MarketInterface } from 'ccxt'

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Sets `ex.options[key]`, merging one level deep into an existing dictionary so CCXT's other defaults survive. */
export function setOption(ex: Exchange, key: string, value: unknown): void {
  const current: unknown = ex.options[key]
  ex.options[key] = isDict(current) && isDict(value) ? { ...current, ...value } : value
}

/** Calls one of CCXT's implicit API methods (e.g. `indexerGetPerpetualMarkets`) by name, bound to the instance. */
export async function callRaw<T = unknown>(ex: Exchange, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const fn = (ex as unknown as Record<string, unknown>)[method]
  if (typeof fn !== 'function') throw new Error(`${ex.id}: CCXT has no implicit method ${method}`)
  return (await (fn as (p: object) => Promise<unknown>).call(ex, params)) as T
}

/**
 * CCXT's loadMarkets, asked again after a failure. CCXT 4.5.84 keeps the promise of a failed load (`marketsLoading`,
 * cleared only by `reload`): every later loadMarkets() returns the same rejection without asking the venue, so a
 * connector whose first load failed (the venue down, rate limited or refusing at start) would never load its markets.
 * A failed load is forgotten here, so the next attempt asks the venue.
 */
export async function loadMarkets(ex: Exchange): Promise<void> {
  try {
    await ex.loadMarkets()
  } catch (err) {
    ;(ex as unknown as { marketsLoading?: unknown }).marketsLoading = undefined
    throw err
  }
}

/**
 * Skip CCXT's fetchCurrencies inside loadMarkets. Public market data needs no currency list, and on some venues it
 * is an extra call (Hyperliquid: spotMeta) that would only add a way for startup to fail.
 */
export function skipCurrencies(ex: Exchange): void {
  ex.has['fetchCurrencies'] = false
}

/** Find a market by base asset among CCXT's loaded markets: exact base first, then the venue's base id. */
export function findByBase(
  ex: Exchange,
  coin: string,
  accept: (m: MarketInterface) => boolean,
): MarketInterface | undefined {
  const candidates = Object.values(ex.markets ?? {}).filter((m): m is MarketInterface => !!m && accept(m) && m.active !== false)
  return (
    candidates.find((m) => m.base.toUpperCase() === coin) ??
    candidates.find((m) => String(m.baseId ?? '').toUpperCase() === coin)
  )
}

/** The venue's perpetual markets, its market list loaded again (not CCXT's cached copy); none without an instance. */
export async function reloadPerps(ex: Exchange | undefined): Promise<MarketInterface[]> {
  if (!ex) return []
  await ex.loadMarkets(true)
  return Object.values(ex.markets ?? {}).filter((m): m is MarketInterface => !!m && m.swap === true)
}

const guardedSends = new WeakSet<object>()
type SendingClient = { send(message: unknown): Promise<unknown> }

/**
 * ccxt.pro sends a subscription once its rate-limit turn comes without handling the send's rejection
 * (`Exchange.watch`: `client.throttle(cost).then(() => { client.send(message) })`): a socket that closes meanwhile
 * rejects with no one listening, an unhandled rejection, which ends a Node process. Every WebSocket client of the
 * instance keeps its send's rejection for the callers that do handle it, and marks it handled; the connector learns of
 * the closed socket from its watch loop as for any other disconnect.
 */
export function guardWsSends(ex: Exchange): void {
  if (guardedSends.has(ex)) return
  guardedSends.add(ex)
  const holder = ex as unknown as { client: (url: string) => SendingClient }
  const client = holder.client
  if (typeof client !== 'function') return
  holder.client = function (this: Exchange, url: string): SendingClient {
    const c = client.call(this, url)
    if (!guardedSends.has(c)) {
      guardedSends.add(c)
      const send = c.send.bind(c)
      c.send = (message: unknown) => {
        const sent = send(message)
        sent.catch(() => {})
        return sent
      }
    }
    return c
  }
}
