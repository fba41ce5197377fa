// What several views share: one block per coin for list payloads, and the period rules.
import { emptyNote, h } from '../dom.js'
import { INTERVAL_MS } from '../format.js'

export const SECOND = 1000
export const MINUTE = 60_000

/**
 * List payloads answer one entry per coin: each gets its own heading and block; an empty list says so.
 * draw(entry) returns the block's content.
 */
export function perCoin(el, entries, draw, { empty = 'No coin in this answer.' } = {}) {
  if (!Array.isArray(entries) || !entries.length) return el.append(emptyNote(empty))
  for (const entry of entries) el.append(h('div', { class: 'coin-block', dataset: { coin: entry.coin ?? '' } }, entry.coin ? h('h4', null, entry.coin) : null, draw(entry)))
}

/** a venue's own remark (stale, no data, …) after its name */
export const venueCell = (name, note) => [name, note ? h('span', { class: 'muted' }, ` (${note})`) : null]

/** the window's end was fixed by the reader: that history does not change, so there is nothing to refresh */
export const liveOnly = (params, period) => (params.end ? null : period)

/**
 * Per-interval sums: the points of whole intervals, and the interval still in progress at `asOf` (its sum so far is not
 * comparable with whole ones: drawn among them, a quiet start of the hour reads as a fall to zero).
 */
export function splitInProgress(points, interval, asOf) {
  const size = INTERVAL_MS[interval]
  if (!size || !Number.isFinite(asOf)) return { closed: points, open: null }
  return { closed: points.filter((p) => p.ts + size <= asOf), open: points.find((p) => p.ts + size > asOf) ?? null }
}
