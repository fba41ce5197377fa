// The events beside trades and samples that the ingest pipeline stores as they come: liquidation orders, positioning
// ratios, and the sources' feed states (when each venue's liquidation stream was up). Kept out of ingest.ts: the
// pipeline hands them here and calls flush() with its own.
import type { Sql } from '../store/database.js'
import type { FeedStateEvent, LiquidationEvent, PositioningEvent } from '../domain/events.js'
import { FeedUptime } from './feed-uptime.js'
import { writeFeedSpans } from '../store/market/feed-uptime.js'
import { writeLiquidations, writePositioning, type LiquidationOrderRow, type PositioningRow } from '../store/market/liquidations.js'

export class SideEvents {
  private orders: LiquidationOrderRow[] = []
  private positioning: PositioningRow[] = []
  private readonly uptime = new FeedUptime()

  add(e: LiquidationEvent | PositioningEvent): void {
    if (e.type === 'liquidation') this.orders.push({ exchange: e.exchange, coin: e.coin, ts: e.ts, id: e.id, side: e.side, price: e.price, size: e.size, usd: e.usd })
    else this.positioning.push({ exchange: e.exchange, coin: e.coin, kind: e.kind, ts: e.ts, longShare: e.longShare, shortShare: e.shortShare, ratio: e.ratio, periodMs: e.periodMs, source: e.source ?? 'live' })
  }

  feed(state: FeedStateEvent): void {
    this.uptime.add(state)
  }

  /** writes what is pending, open feed spans up to `now` (the pipeline's clock); on failure keeps it all and rethrows */
  async flush(sql: Pick<Sql, 'query' | 'transaction'>, now: number): Promise<{ orders: number; positioning: number; spans: number }> {
    const orders = this.orders
    const positioning = this.positioning
    const spans = this.uptime.take(now)
    this.orders = []
    this.positioning = []
    try {
      await writeLiquidations(sql, orders)
      await writePositioning(sql, positioning)
      await writeFeedSpans(sql, spans)
    } catch (e) {
      this.orders = orders.concat(this.orders)
      this.positioning = positioning.concat(this.positioning)
      this.uptime.putBack(spans)
      throw e
    }
    return { orders: orders.length, positioning: positioning.length, spans: spans.length }
  }
}
