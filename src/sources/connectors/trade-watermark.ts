// The REST trade fallback re-reads recent trades on every poll: only those past the newest already emitted pass
// (same ts: an id not seen at that ts yet).
export class TradeWatermark {
  private readonly marks = new Map<string, { ts: number; ids: Set<string> }>()

  /** the items whose trade is new for `symbol`, in ts order, and moves the mark past them */
  fresh<T>(symbol: string, items: readonly T[], trade: (item: T) => { ts: number; id: string }): T[] {
    const mark = this.marks.get(symbol) ?? { ts: -Infinity, ids: new Set<string>() }
    const out: T[] = []
    for (const item of [...items].sort((a, b) => trade(a).ts - trade(b).ts)) {
      const e = trade(item)
      if (e.ts < mark.ts || (e.ts === mark.ts && mark.ids.has(e.id))) continue
      if (e.ts > mark.ts) {
        mark.ts = e.ts
        mark.ids = new Set()
      }
      mark.ids.add(e.id)
      out.push(item)
    }
    this.marks.set(symbol, mark)
    return out
  }
}
