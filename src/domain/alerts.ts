// Alert rules as callers write them (POST /v1/alerts): a coin, a condition, a webhook URL and a name. Every
// refusal names the field (condition.type, condition.value, url, …) and the allowed values.
import { z } from 'zod'
import { invalidParameter } from '../errors.js'

export const ALERT_CONDITION_TYPES = [
  'price_above', 'price_below', 'funding_z_above', 'funding_z_below', 'divergence_active', 'imbalance_above', 'imbalance_below', 'liquidation_above',
] as const
/** the divergence pairs and timeframes of /v1/signals/divergence (src/analytics/divergence.ts) */
const ALERT_DIVERGENCE_PAIRS = ['oi_price', 'cvd_price', 'funding_price', 'spot_perp_cvd'] as const
const ALERT_DIVERGENCE_TIMEFRAMES = ['1h', '4h'] as const
/** the depth bands of /v1/flow/imbalance, ±% of mid */
const ALERT_IMBALANCE_BANDS = [0.5, 1, 2, 5] as const

const value = z.number().finite()
export const AlertCondition = z.discriminatedUnion('type', [
  z.object({ type: z.enum(['price_above', 'price_below']), value: value.positive() }).strict(),
  z.object({ type: z.enum(['funding_z_above', 'funding_z_below']), value }).strict(),
  z.object({ type: z.literal('divergence_active'), pair: z.enum(ALERT_DIVERGENCE_PAIRS), timeframe: z.enum(ALERT_DIVERGENCE_TIMEFRAMES).default('4h') }).strict(),
  z.object({ type: z.enum(['imbalance_above', 'imbalance_below']), band: z.union(ALERT_IMBALANCE_BANDS.map((b) => z.literal(b)) as [z.ZodLiteral<0.5>, z.ZodLiteral<1>, z.ZodLiteral<2>, z.ZodLiteral<5>]), value: value.positive() }).strict(),
  z.object({ type: z.literal('liquidation_above'), value: value.positive() }).strict(),
])
export type AlertCondition = z.output<typeof AlertCondition>

/** control characters (NUL among them, which a store's text refuses) have no place in a label or a URL */
const printable = (s: z.ZodString) => s.regex(/^[^\u0000-\u001f\u007f]*$/, 'control characters are not allowed')
const AlertBody = z
  .object({
    coin: z.string().min(1).max(20),
    condition: AlertCondition,
    url: printable(z.string().min(1).max(2048)),
    name: printable(z.string().min(1).max(100)).optional(),
  })
  .strict()
export type AlertInput = Omit<z.output<typeof AlertBody>, 'name'> & { name: string }

// a Map: a field named `constructor` or `toString` must find nothing here, not Object.prototype's
const ALLOWED = new Map<string, readonly (string | number)[]>([
  ['condition.type', ALERT_CONDITION_TYPES],
  ['condition.pair', ALERT_DIVERGENCE_PAIRS],
  ['condition.timeframe', ALERT_DIVERGENCE_TIMEFRAMES],
  ['condition.band', ALERT_IMBALANCE_BANDS],
])

/** the rule a caller sent, checked: coin known, url http(s) without credentials */
export function parseAlertBody(body: Record<string, unknown>, coins: readonly string[]): AlertInput {
  const coin = typeof body.coin === 'string' ? body.coin.toUpperCase() : body.coin
  const r = AlertBody.safeParse({ ...body, coin })
  if (!r.success) {
    const issue = r.error.issues[0]!
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : []
    const name = [...issue.path.map(String), ...(keys.length ? [keys[0]!] : [])].join('.') || 'body'
    const shown = issue.code === 'invalid_union' && issue.path.join('.') === 'condition' ? 'condition.type' : name
    throw invalidParameter(shown, keys.length ? `Unknown field "${shown}".` : `${shown}: ${issue.message}`, ALLOWED.get(shown))
  }
  const v = r.data
  if (!coins.includes(v.coin)) throw invalidParameter('coin', `Unknown coin "${v.coin}".`, coins)
  let url: URL
  try {
    url = new URL(v.url)
  } catch {
    throw invalidParameter('url', 'url must be an absolute http or https URL.')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidParameter('url', 'url must be an absolute http or https URL.', ['https', 'http'])
  if (url.username || url.password) throw invalidParameter('url', 'url must not carry credentials.')
  return { ...v, name: v.name ?? `${v.coin} ${v.condition.type}` }
}
