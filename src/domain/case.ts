// Parameter and field names: REST speaks snake_case, GraphQL camelCase.
export const snakeToCamel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())

/** GraphQL camelCase → REST snake_case; a digit run starts a word: rate8h → rate_8h, oiChange24hPct → oi_change_24h_pct */
export const camelToSnake = (s: string) =>
  s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([a-zA-Z])(\d)/g, '$1_$2')
    .toLowerCase()
