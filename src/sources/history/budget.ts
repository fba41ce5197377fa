// One request budget per venue, from its documented limits (limits.ts): every REST call of the venue draws from it,
// live polls first, then gap repair, then backfill. Each pool is a sliding window (the weight drawn in any window of
// its length stays under the limit, so the venue's own fixed windows can never be overrun), and a lower priority may
// fill only part of it, so a live poll always finds room. A 429 or a 418 ban pauses the whole venue (the venues count
// per IP) until the time it stated.
//
// Hand-written rather than `bottleneck` (last release 2019, one reservoir per limiter, no shared pause) or `limiter`
// (no priorities): what is needed is weights, several pools per venue, priorities and a venue-wide pause.
import type { ExchangeId } from '../../domain/exchanges.js'

export type BudgetPriority = 'live' | 'repair' | 'backfill'
const RANK: Record<BudgetPriority, number> = { live: 0, repair: 1, backfill: 2 }
/** the share of a pool's limit each priority may fill: what backfill leaves is repair's and the live polls' headroom */
export const PRIORITY_CEILING: Record<BudgetPriority, number> = { live: 1, repair: 0.85, backfill: 0.7 }
/** the longest a waiter waits before its budget looks at the clock again (a pause of a minute: 60 looks) */
const RECHECK_MS = 1000

export interface PoolLimit {
  name: string
  /** weight (or requests) allowed per window */
  limit: number
  windowMs: number
  /** where the venue documents it */
  source: string
}

export interface VenueLimits {
  venue: ExchangeId
  pools: readonly PoolLimit[]
  /** the share of each limit we allow ourselves (the rest is margin for clock skew and other users of the address) */
  safety: number
}

export interface Draw {
  /** default: the venue's first pool */
  pool?: string
  weight: number
}

interface Waiter {
  draws: Draw[]
  rank: number
  ceiling: number
  seq: number
  at: number
  priority: BudgetPriority
  resolve: () => void
  reject: (e: unknown) => void
  cleanup?: () => void
}

interface Pool extends PoolLimit {
  /** grants in the window, oldest first */
  log: { t: number; w: number }[]
  used: number
}

export interface BudgetStats {
  venue: ExchangeId
  pools: { name: string; used: number; limit: number; window_ms: number }[]
  /** grants that had to wait, and how long they waited in all, per priority */
  waits: Record<BudgetPriority, { count: number; ms: number }>
  /** the venue asked us to stop until then (429 Retry-After, a 418 ban), null when not paused */
  paused_until: number | null
  rate_limited: number
  bans: number
  queued: number
}

export class BudgetAbortedError extends Error {
  constructor() {
    super('budget wait aborted')
  }
}

export class VenueBudget {
  private readonly pools = new Map<string, Pool>()
  private readonly queue: Waiter[] = []
  private seq = 0
  private timer: ReturnType<typeof setTimeout> | null = null
  private timerAt = Infinity
  private pausedUntil = 0
  private readonly waits: BudgetStats['waits'] = { live: { count: 0, ms: 0 }, repair: { count: 0, ms: 0 }, backfill: { count: 0, ms: 0 } }
  private rateLimited = 0
  private bans = 0

  constructor(
    readonly limits: VenueLimits,
    readonly now: () => number = Date.now,
  ) {
    for (const p of limits.pools) this.pools.set(p.name, { ...p, log: [], used: 0 })
    if (!this.pools.size) throw new Error(`${limits.venue}: a budget needs at least one pool`)
  }

  get venue(): ExchangeId {
    return this.limits.venue
  }

  /** resolves once the draws fit (in priority order, first come first served within one); rejects when `signal` aborts */
  acquire(draws: Draw | readonly Draw[], priority: BudgetPriority, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new BudgetAbortedError())
    const list = (Array.isArray(draws) ? draws : [draws]) as Draw[]
    for (const d of list) if (d.pool !== undefined && !this.pools.has(d.pool)) throw new Error(`${this.venue}: no budget pool ${d.pool}`)
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = { draws: list, rank: RANK[priority], ceiling: PRIORITY_CEILING[priority], seq: this.seq++, at: this.now(), priority, resolve, reject }
      if (signal) {
        const onAbort = () => {
          const i = this.queue.indexOf(w)
          if (i >= 0) this.queue.splice(i, 1)
          reject(new BudgetAbortedError())
          this.pump()
        }
        signal.addEventListener('abort', onAbort, { once: true })
        w.cleanup = () => signal.removeEventListener('abort', onAbort)
      }
      this.queue.push(w)
      this.queue.sort((a, b) => a.rank - b.rank || a.seq - b.seq)
      this.pump()
    })
  }

  /** the venue said stop (429 Retry-After, 418 ban until): nothing is granted before `until` */
  pause(until: number, kind: 'rate_limited' | 'banned'): void {
    if (kind === 'banned') this.bans++
    else this.rateLimited++
    if (until > this.pausedUntil) this.pausedUntil = until
    this.pump()
  }

  stats(): BudgetStats {
    const now = this.now()
    return {
      venue: this.venue,
      pools: [...this.pools.values()].map((p) => ({ name: p.name, used: this.usage(p, now), limit: p.limit, window_ms: p.windowMs })),
      waits: structuredClone(this.waits),
      paused_until: this.pausedUntil > now ? this.pausedUntil : null,
      rate_limited: this.rateLimited,
      bans: this.bans,
      queued: this.queue.length,
    }
  }

  /** the least time `weight` a pool can take at a priority's ceiling, from empty (for the bench's least backfill time) */
  leastTimeMs(pool: string, weight: number, priority: BudgetPriority): number {
    const p = this.pools.get(pool)
    if (!p) throw new Error(`${this.venue}: no budget pool ${pool}`)
    const perWindow = p.limit * this.limits.safety * PRIORITY_CEILING[priority]
    return weight <= perWindow ? 0 : ((weight - perWindow) / perWindow) * p.windowMs
  }

  private pool(d: Draw): Pool {
    return d.pool === undefined ? this.pools.values().next().value! : this.pools.get(d.pool)!
  }

  private usage(p: Pool, now: number): number {
    while (p.log.length && p.log[0]!.t <= now - p.windowMs) p.used -= p.log.shift()!.w
    return p.used
  }

  /** when the draws fit at the ceiling: now, or the time enough of the oldest grants leave their windows */
  private fitsAt(w: Waiter, now: number): number {
    let at = now
    for (const d of w.draws) {
      const p = this.pool(d)
      const cap = p.limit * this.limits.safety * w.ceiling
      // a draw larger than the ceiling waits for an empty window (it could never fit otherwise)
      const need = Math.min(d.weight, cap)
      let used = this.usage(p, now)
      if (used + need <= cap) continue
      for (const g of p.log) {
        used -= g.w
        if (used + need <= cap) {
          at = Math.max(at, g.t + p.windowMs)
          break
        }
      }
    }
    return at
  }

  private pump(): void {
    const now = this.now()
    let wake = Infinity
    if (this.pausedUntil > now) wake = this.pausedUntil
    else {
      // pools a waiter ahead could not get: nobody behind it takes from them (no starving of a heavier or higher draw)
      const blocked = new Set<Pool>()
      for (let i = 0; i < this.queue.length; ) {
        const w = this.queue[i]!
        const pools = w.draws.map((d) => this.pool(d))
        if (pools.some((p) => blocked.has(p))) {
          i++
          continue
        }
        const at = this.fitsAt(w, now)
        if (at > now) {
          for (const p of pools) blocked.add(p)
          wake = Math.min(wake, at)
          i++
          continue
        }
        for (const d of w.draws) {
          const p = this.pool(d)
          if (d.weight > 0) {
            p.log.push({ t: now, w: d.weight })
            p.used += d.weight
          }
        }
        this.queue.splice(i, 1)
        if (now > w.at) {
          this.waits[w.priority].count++
          this.waits[w.priority].ms += now - w.at
        }
        w.cleanup?.()
        w.resolve()
      }
    }
    if (!this.queue.length || wake === Infinity) return
    // looked at again at least every RECHECK_MS: the clock the waits are on may move other than the timer does (a
    // stepped system clock; a test's clock moved on), and a long pause then ends when the clock says, not a timer
    const at = Math.min(wake, now + RECHECK_MS)
    if (this.timer && this.timerAt <= at) return
    if (this.timer) clearTimeout(this.timer)
    this.timerAt = at
    this.timer = setTimeout(() => {
      this.timer = null
      this.timerAt = Infinity
      this.pump()
    }, Math.max(1, at - now))
    this.timer.unref?.()
  }
}
