// The events beside trades and samples that the ingest pipeline stores as they come: liquidation orders and
// positioning ratios. Kept out of ingest.ts: the pipeline hands them here and calls flush() with its own.
import type { Sql } from '../store/database.js'
import type { LiquidationEvent, PositioningEvent } from './events.js'
import { writeLiquidations, writePositioning, type LiquidationOrderRow, type PositioningRow } from './store/liquidations.js'

export class SideEvents {
  private orders: LiquidationOrderRow[] = []
  private positioning: PositioningRow[] = []

  add(e: LiquidationEvent | PositioningEvent): void {
    if (e.type === 'liquidation') this.orders.push({ exchange: e.exchange, coin: e.coin, ts: e.ts, id: e.id, side: e.side, price: e.price, size: e.size, usd: e.usd })
    else this.positioning.push({ exchange: e.exchange, coin: e.coin, kind: e.kind, ts: e.ts, longShare: e.longShare, shortShare: e.shortShare, ratio: e.ratio, periodMs: e.periodMs })
  }

  /** writes what is pending; on failure keeps it for the next flush and rethrows */
  async flush(sql: Pick<Sql, 'query' | 'transaction'>): Promise<{ orders: number; positioning: number }> {
    const orders = this.orders
    const positioning = this.positioning
    this.orders = []
    this.positioning = []
    try {
      await writeLiquidations(sql, orders)
      await writePositioning(sql, positioning)
    } catch (e) {
      this.orders = orders.concat(this.orders)
      this.positioning = positioning.concat(this.positioning)
      throw e
    }
    return { orders: orders.length, positioning: positioning.length }
  }
}
