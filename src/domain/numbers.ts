// Numbers as venues send them: CCXT fields and raw venue strings (the connectors, the history pages and the venue
// tier tables read them alike).

/** A finite number from a CCXT field or a raw venue string; null otherwise. */
export function num(value: unknown): number | null {
  if (value === null || value === undefined || value === '') return null
  const n = typeof value === 'number' ? value : Number(value)
  return Number.isFinite(n) ? n : null
}
