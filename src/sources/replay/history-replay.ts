// A replay of a recording that carries history (docs/recordings.md "History"): each venue whose history service the
// recording ran gets it again on the replayed connectors, through the same runner, planner, budget and fetcher as
// live. Only time is translated, as for every replayed payload: the service plans on the replay's warped clock, from
// the moment the recorded one planned (so it plans the recorded window and pages, moved by the warp); each fetch asks
// the venue for its window moved back into recording time, where a recorded page covers it, and its bars and events
// move forward by the same amount before they are stored.
import type { Logger } from 'pino'
import type { Database } from '../../store/database.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import { MINUTE_MS } from '../../domain/time.js'
import type { MarketEvent } from '../../domain/events.js'
import type { Written } from '../../ingest/ingest.js'
import type { MarketState } from '../../read/state.js'
import { VenueBudget } from '../history/budget.js'
import type { PayingVenueHistory } from '../history/runner.js'
import { startHistory, type HistoryService } from '../history/service.js'
import type { Draw } from '../history/budget.js'
import type { HistoryKind, HistoryPage, HistoryRequest } from '../../domain/venue-history.js'
import { historySetup } from '../history/venues.js'
import type { HistoryLine } from './format.js'
import { asHistoryFetch } from './http-replay.js'
import type { ReplayPlayer } from './player.js'

/** A venue's history fetcher on the warped time line: windows asked `shiftMs` earlier, pages moved `shiftMs` later. */
class WarpedHistory implements PayingVenueHistory {
  readonly venue: ExchangeId
  readonly kinds: ReadonlySet<HistoryKind>

  constructor(
    private readonly inner: PayingVenueHistory,
    private readonly shiftMs: number,
  ) {
    this.venue = inner.venue
    this.kinds = inner.kinds
  }

  cost(kind: HistoryKind) {
    return this.inner.cost(kind)
  }

  retentionMs(kind: HistoryKind): number {
    return this.inner.retentionMs(kind)
  }

  lists(coin: string, kind: HistoryKind): boolean {
    return this.inner.lists(coin, kind)
  }

  async fetch(req: HistoryRequest, signal: AbortSignal, pay?: (d: Draw[]) => Promise<void>): Promise<HistoryPage> {
    const d = this.shiftMs
    const page = await asHistoryFetch(() => this.inner.fetch({ ...req, from: req.from - d, to: req.to - d }, signal, pay))
    return {
      from: page.from + d,
      to: page.to + d,
      bars: page.bars.map((b) => ({ ...b, ts: b.ts + d })),
      events: page.events.map((e) => moveEvent(e, d)),
      ...(page.exhaustedBefore ? { exhaustedBefore: { ...page.exhaustedBefore, ts: page.exhaustedBefore.ts + d } } : {}),
    }
  }
}

function moveEvent(e: MarketEvent, d: number): MarketEvent {
  // a ticker's next settlement keeps its distance from the event, as the replay's sink moves it
  if (e.type === 'ticker') return { ...e, ts: e.ts + d, nextFundingTime: e.nextFundingTime === null ? null : e.nextFundingTime + d }
  return { ...e, ts: e.ts + d }
}

export interface ReplayHistoryOptions {
  player: ReplayPlayer
  db: Database
  market: MarketState
  logger?: Logger
  onWritten?: (w: Written) => void
  onHoursWritten?: () => void
  concurrency?: number
}

/**
 * The history of the recorded venues that have a history fetcher and whose recording holds a `history` line, on the
 * replay's connectors (the first pass's); null when the recording carries none.
 */
export function startReplayHistory(o: ReplayHistoryOptions): HistoryService | null {
  const { clock } = o.player
  const planned = new Map<ExchangeId, HistoryLine>()
  for (const line of o.player.recording.history) if (!planned.has(line.venue)) planned.set(line.venue, line)
  const connectors = o.player.connectors.filter((c) => planned.has(c.exchange) && historySetup(c.exchange))
  if (!connectors.length) return null
  // the warp of the moment the recorded history planned, in whole minutes (a recording of one session: the replay's
  // shift), so the planned pages keep their minute boundaries and map one to one onto the recorded ones
  const shift = new Map([...planned].map(([v, l]) => [v, Math.round((clock.warped(l.now, 0) - l.now) / MINUTE_MS) * MINUTE_MS]))
  const budgets = new Map(connectors.map((c) => [c.exchange, new VenueBudget(historySetup(c.exchange)!.limits, () => clock.warpedNow())]))
  o.logger?.info({ venues: [...budgets.keys()], days: [...planned.values()].map((l) => l.days) }, 'replay: the recording carries history; its backfill replays')
  return startHistory({
    connectors,
    budgets,
    db: o.db,
    market: o.market,
    days: Math.max(...[...planned.values()].map((l) => l.days)),
    now: () => clock.warpedNow(),
    // the recorded planning moment, warped, until the replay's clock passes it (it does within the first seconds)
    clockFor: (venue) => {
      const line = planned.get(venue)!
      const at = line.now + shift.get(venue)!
      return () => Math.max(clock.warpedNow(), at)
    },
    makeHistory: (c, now) => {
      const d = shift.get(c.exchange)!
      return new WarpedHistory(historySetup(c.exchange)!.history(c, () => now() - d), d)
    },
    // the recording's own gaps are its data: a repair would ask for spans the recording never fetched
    repairOutages: false,
    logger: o.logger,
    onWritten: o.onWritten,
    onHoursWritten: o.onHoursWritten,
    concurrency: o.concurrency,
  })
}
