// The alert engine: every ALERT_POLL_MS each active rule's condition is evaluated on the newest values (the median
// mark of the live tickers, outliers left out, the funding z-score, divergence and imbalance from the computed signals, the
// coin's liquidations of the last minute from the liquidations channel); the store turns a false→true flip into
// one queued delivery (src/accounts/alerts.ts). Then due deliveries are claimed, paid for and sent, retried with
// doubling waits for 24 h. Any number of API nodes may run this: the store decides who fires and who sends.
import { activeRules, chargeDelivery, claimDeliveries, deliveryFailed, deliverySucceeded, recordEvaluation, type AlertRuleRow, type ClaimedDelivery } from '../accounts/alerts.js'
import type { AlertCondition } from '../domain/alerts.js'
import type { ExchangeId } from '../domain/exchanges.js'
import { publishesMark } from '../domain/venue-prices.js'
import { outlierReason, splitOutliers } from '../analytics/price-outliers.js'
import type { Services } from '../services.js'
import type { SignalKind, SignalSource } from './signals.js'
import { sendEvent } from './webhook.js'

const DAY_MS = 86_400_000
const MAX_WAIT_MS = 3_600_000
const LIQUIDATION_WINDOW_MS = 60_000
/** a claimed delivery is another node's to take after this long (a node died while sending) */
const LEASE_MS = 30_000

export interface AlertEngine {
  /** one evaluation of every active rule, then one round of due deliveries (the timer runs this) */
  run(): Promise<void>
  /** no more rounds; resolves when the round in progress, if any, has finished (before the store closes) */
  stop(): Promise<void>
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/**
 * the price a price rule compares: the median of the venues' live perp marks (dYdX has none apart from its oracle),
 * a mark far off the others' (price-outliers.ts) left out and named
 */
export function alertPrice(tickers: readonly { exchange: ExchangeId; markPrice: number | null; ts: number }[]): { price: number; exchanges: ExchangeId[]; outliers: { exchange: ExchangeId; reason: string }[]; dataTs: number } | null {
  const marks = tickers.filter((t) => publishesMark(t.exchange) && t.markPrice !== null && Number.isFinite(t.markPrice) && t.markPrice > 0)
  if (!marks.length) return null
  const split = splitOutliers(marks.map((t) => ({ exchange: t.exchange, price: t.markPrice! })))
  // no venue near the median (two groups far apart): no price to compare, the rule waits
  if (!split.kept.length) return null
  return {
    price: median(split.kept.map((k) => k.price)),
    exchanges: split.kept.map((k) => k.exchange),
    outliers: split.outliers.map((o) => ({ exchange: o.exchange, reason: outlierReason(o, split.median!) })),
    dataTs: Math.max(...marks.map((t) => t.ts)),
  }
}

export function alertEngine(services: Services, signals: SignalSource): AlertEngine {
  const { db, market, config, logger } = services
  const latest = new Map<string, { data: Record<string, unknown>; slot: number }>()
  signals.onValue = (kind, coin, data, slot) => latest.set(`${kind}:${coin}`, { data, slot })
  const liquidations: { coin: string; ts: number; usd: number }[] = []
  const unsubscribe = market.stream.subscribe((e) => {
    if (e.channel === 'liquidations') liquidations.push({ coin: e.coin, ts: e.ts, usd: Number(e.data.usd) || 0 })
  })
  let release = () => {}

  /** the condition's value now, and the time of the data it was taken from (the newest ticker, the signal's slot, the clock) */
  const valueOf = (coin: string, c: AlertCondition, now: number): { value: number | boolean; isTrue: boolean; dataTs: number; detail?: Record<string, unknown> } | null => {
    switch (c.type) {
      case 'price_above':
      case 'price_below': {
        const a = alertPrice(market.live.tickerList().filter((t) => t.coin === coin && t.marketType === 'perp'))
        if (!a) return null
        const p = a.price
        return { value: p, isTrue: c.type === 'price_above' ? p > c.value : p < c.value, dataTs: a.dataTs, detail: { exchanges: a.exchanges, outliers: a.outliers } }
      }
      case 'funding_z_above':
      case 'funding_z_below': {
        const f = latest.get(`funding:${coin}`)
        const z = f?.data.z_score
        if (typeof z !== 'number') return null
        return { value: z, isTrue: c.type === 'funding_z_above' ? z > c.value : z < c.value, dataTs: f!.slot }
      }
      case 'divergence_active': {
        const d = latest.get(`divergence:${coin}`)
        const pairs = d?.data.pairs as { pair: string; timeframe: string; active: boolean }[] | undefined
        const p = pairs?.find((x) => x.pair === c.pair && x.timeframe === c.timeframe)
        return p ? { value: p.active, isTrue: p.active, dataTs: d!.slot } : null
      }
      case 'imbalance_above':
      case 'imbalance_below': {
        const im = latest.get(`imbalance:${coin}`)
        const bands = (im?.data.aggregate as { bands?: { band_pct: number; ratio: number | null }[] } | undefined)?.bands
        const r = bands?.find((b) => b.band_pct === c.band)?.ratio
        if (typeof r !== 'number') return null
        return { value: r, isTrue: c.type === 'imbalance_above' ? r > c.value : r < c.value, dataTs: im!.slot }
      }
      case 'liquidation_above': {
        const from = now - LIQUIDATION_WINDOW_MS
        const usd = liquidations.filter((l) => l.coin === coin && l.ts >= from).reduce((s, l) => s + l.usd, 0)
        return { value: usd, isTrue: usd > c.value, dataTs: now }
      }
    }
  }

  const NEEDS: Partial<Record<AlertCondition['type'], SignalKind>> = {
    funding_z_above: 'funding', funding_z_below: 'funding', divergence_active: 'divergence', imbalance_above: 'imbalance', imbalance_below: 'imbalance',
  }

  const evaluate = async (rules: AlertRuleRow[]) => {
    const now = services.clock()
    while (liquidations.length && liquidations[0]!.ts < now - LIQUIDATION_WINDOW_MS) liquidations.shift()
    for (const rule of rules) {
      const v = valueOf(rule.coin, rule.condition, now)
      if (!v || v.isTrue === rule.last_true) continue
      const payload = (eventId: string) =>
        JSON.stringify({ id: eventId, type: 'alert.fired', created: now, alert: { alert_id: rule.id, name: rule.name, coin: rule.coin, condition: rule.condition }, value: v.value, ...(v.detail ?? {}) })
      const fired = await recordEvaluation(db.sql, rule, v.isTrue, v.dataTs, payload, now)
      if (fired) logger.info({ alert: rule.id, event: fired }, 'alert fired')
    }
  }

  const follow = (rules: AlertRuleRow[]) => {
    const byKind = new Map<SignalKind, Set<string>>()
    for (const r of rules) {
      const k = NEEDS[r.condition.type]
      if (k) byKind.set(k, (byKind.get(k) ?? new Set()).add(r.coin))
    }
    release()
    const releases = [...byKind].map(([k, coins]) => market.stream.want([k], [...coins]))
    release = () => releases.forEach((f) => f())
  }

  const deliverOne = async (d: ClaimedDelivery) => {
    // paid for once the connection is up, just before the request goes out: an attempt that sends nothing costs nothing
    const pay = async () => {
      const paid = await chargeDelivery(db.sql, d)
      if (paid.ok) d.charged = true
      return paid.ok
    }
    const out = await sendEvent(d.url, d.secret, d.id, d.payload, services.clock(), config.ALERT_ALLOW_LOOPBACK, pay)
    if (out.error === 'unpaid') return // marked so by the charge
    const now = services.clock()
    if (out.ok) return deliverySucceeded(db.sql, d, now)
    const wait = Math.min(MAX_WAIT_MS, config.ALERT_RETRY_BASE_MS * 2 ** Math.min(30, d.attempts - 1))
    await deliveryFailed(db.sql, d, out.error ?? 'failed', now + wait <= d.created_at + DAY_MS ? now + wait : null)
  }

  let running: Promise<void> | null = null
  const round = async () => {
    const rules = await activeRules(db.sql)
    follow(rules)
    await evaluate(rules)
    const due = await claimDeliveries(db.sql, services.clock(), LEASE_MS, 20)
    await Promise.all(due.map((d) => deliverOne(d).catch((err: unknown) => logger.warn({ err, delivery: d.id }, 'alert delivery failed'))))
  }
  let stopped = false
  const run = () =>
    stopped
      ? Promise.resolve()
      : (running ??= round()
          .catch((err: unknown) => logger.warn({ err }, 'alerts: a round failed'))
          .finally(() => (running = null)))
  const timer = setInterval(() => void run(), config.ALERT_POLL_MS)
  timer.unref()
  return {
    run,
    stop: async () => {
      stopped = true
      clearInterval(timer)
      unsubscribe()
      release()
      await running
    },
  }
}
