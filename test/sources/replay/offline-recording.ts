// A recording session over offline-fed connectors: the recorder's hooks sit on CCXT instances that the offline
// harness answers (REST from the fixture files, WebSocket frames pushed into ccxt.pro's client), so the recorder
// sees exactly what it would see from a venue. Bybit's 2026 session is fed frame by frame at its own times; the
// Hyperliquid and dYdX market lists and tickers come from REST. Not a test file.
import ccxt from 'ccxt'
import { pino } from 'pino'
import type { ExchangeId } from '../../../src/domain/exchanges.js'
import type { VenueInstances } from '../../../src/sources/replay/instances.js'
import { recordSession, type RecordSummary } from '../../../src/sources/replay/record-session.js'
import { dydxBody, fixtureText, offlineHttp, offlineWs, waitFor, type FakeWs, type Route } from '../connectors/offline.js'
import { bybitBookFrames, type BybitTrade } from './expected.js'
import { fixture } from './helpers.js'

export const RECORDED_VENUES: ExchangeId[] = ['bybit', 'hyperliquid', 'dydx']

const info = (type: string, file: string): Route => [(url, body) => url.endsWith('/info') && JSON.parse(body ?? '{}').type === type, fixtureText(file)]

export interface OfflineRecording {
  summary: RecordSummary
  /** the frames pushed, in order, as the text the fake socket delivered */
  pushed: Array<{ at: number; text: string }>
}

export async function recordOffline(out: string): Promise<OfflineRecording> {
  let clock = fixture('bybit/instruments.json').time as number
  let bybitWs: FakeWs | undefined
  const instances = (venue: ExchangeId): VenueInstances => {
    switch (venue) {
      case 'bybit': {
        const ex = new ccxt.pro.bybit()
        offlineHttp(ex, [
          ['/v5/market/instruments-info', fixtureText('bybit/instruments.json')],
          ['/v5/market/tickers', fixtureText('bybit/tickers.json')],
          ['/v5/market/open-interest', fixtureText('bybit/open_interest.json')],
        ])
        bybitWs = offlineWs(ex)
        return { perp: ex }
      }
      case 'hyperliquid': {
        const ex = new ccxt.pro.hyperliquid()
        offlineHttp(ex, [info('metaAndAssetCtxs', 'hyperliquid/meta_and_asset_ctxs.json')])
        offlineWs(ex)
        return { perp: ex }
      }
      case 'dydx': {
        const ex = new ccxt.pro.dydx()
        offlineHttp(ex, [['/v4/perpetualMarkets', dydxBody('dydx/perpetual_markets.json')]])
        offlineWs(ex)
        return { perp: ex }
      }
      default:
        throw new Error(`not fed offline: ${venue}`)
    }
  }
  // Bybit's book and trade frames in the order they were received
  const trades = fixture<Array<{ ts: number; data: BybitTrade[] }>>('bybit/ws_public_trade.json')
  const frames = [...bybitBookFrames(), ...trades].map((f, i) => ({ f, i })).sort((a, b) => a.f.ts - b.f.ts || a.i - b.i).map(({ f }) => f)
  const pushed: OfflineRecording['pushed'] = []
  let done: () => void = () => {}
  const stop = new Promise<void>((r) => (done = r))
  const session = recordSession({
    exchanges: RECORDED_VENUES,
    coins: ['BTC'],
    minutes: 60,
    out,
    logger: pino({ level: 'silent' }),
    instances,
    now: () => clock,
    stop,
    connectorOptions: { marketTypes: ['perp'] },
  })
  await waitFor(() => (bybitWs?.sent.filter((s) => s.message.op === 'subscribe').length ?? 0) >= 2, 10_000, 'bybit subscriptions')
  for (const f of frames) {
    clock = f.ts
    pushed.push({ at: f.ts, text: JSON.stringify(f) })
    bybitWs!.push(f)
    await new Promise((r) => setImmediate(r))
  }
  done()
  return { summary: await session, pushed }
}
