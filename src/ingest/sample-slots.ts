// One market's sample slots inside the ingest pipeline (ingest.ts): the row of the open slot, the values it carries
// forward, and the slots already handed to the store (for rewriting them when a late value comes).
import type { OpenInterestEvent, TickerEvent } from '../domain/events.js'
import type { MarketSample } from '../store/market/samples.js'

/** what a slot row carries: the newest ticker and open-interest event applied to it (their own ts) */
export interface SlotSources {
  slot: number
  tickerTs: number
  oiTs: number
}

export interface SlotState extends SlotSources {
  row: MarketSample
  /** the row of `slot` was handed to the store when the clock left the slot (a quiet feed's last values) */
  closed: boolean
  /** slots already handed to the store, newest last (kept LATE_REWRITE_MS back) */
  written: SlotSources[]
}

export function setTicker(row: MarketSample, e: TickerEvent): void {
  row.markPrice = e.markPrice
  row.indexPrice = e.indexPrice
  row.lastPrice = e.lastPrice
  row.fundingRate = e.fundingRate
  row.fundingIntervalHours = e.fundingIntervalHours
  row.nextFundingTime = e.nextFundingTime
}

/** the event's open interest and where it came from (events.ts SampleSource) */
export const setOpenInterest = (row: MarketSample, e: OpenInterestEvent) => ((row.openInterest = e.openInterest), (row.oiSource = e.source ?? 'live'))

export const emptySample = (e: TickerEvent | OpenInterestEvent, slot: number): MarketSample => ({
  exchange: e.exchange,
  coin: e.coin,
  marketType: e.marketType,
  ts: slot,
  markPrice: null,
  indexPrice: null,
  lastPrice: null,
  fundingRate: null,
  fundingIntervalHours: null,
  nextFundingTime: null,
  openInterest: null,
})

