// Credits charged in memory against leases (issue 32): each node takes a block of an account's credits with one
// conditional UPDATE (credits - leased >= what is needed; ./lease-sql.ts) and charges calls against it in memory, in
// arrival order — nothing below zero, nothing twice. The charges and their ledger rows are written in batches
// (group commit: the charges that arrive while a batch is being written go into the next one).
//
// Durability (CREDIT_DURABILITY): `durable` (the default) answers a call only once the batch holding its charge is
// written, and re-checks its key's revocation there; `memory` answers at once and writes every CREDIT_FLUSH_MS. Either
// way the credits a call is answered for were taken out of the shared balance by the lease before the answer, so a
// crash never lets an account spend more than it had. A crash loses, in `memory`, at most CREDIT_FLUSH_MS of charges'
// ledger rows (those calls go unbilled: their credits return to the account with the lease); in `durable`, none. A
// crashed node's unused lease returns to its account when the lease expires (LEASE_TTL_MS, renewed every round).
//
// Across nodes: a node that cannot cover a call from its lease leases more; when the unleased balance cannot cover it
// either and other nodes hold leases, it asks them back (lease_wanted_at: each holder returns its unused part at its
// next write or round, ROUND_MS, and leases that account per call for a while) and looks once more after RECLAIM_MS
// (two rounds) before it answers 402. A node returns its unused leases on idle (IDLE_MS) and on stop.
import { storeUnavailable } from '../errors.js'
import type { Sql } from '../store/database.js'
import type { Charge } from './credits.js'
import { EXPIRED_SQL, FLUSH_SQL, LEASE_SQL, RENEW_SQL, RETURN_SQL, ROUND_SQL } from './lease-sql.js'

export type ChargeResult = { ok: true; remaining: number } | { ok: false; reason: 'insufficient'; remaining: number } | { ok: false; reason: 'revoked' }

/** a lease not renewed for this long is returned to its account by any other node */
const LEASE_TTL_MS = 30_000
/** how often a node renews its leases, returns expired and idle ones, and learns of revocations and leases asked back */
const ROUND_MS = 250
/** leases are renewed (and emptied ones deleted) every this many rounds: every 2.5 s */
const RENEW_ROUNDS = 10
/** an account not charged on this node for this long gets its unused lease back */
const IDLE_MS = 5_000
/** how long a node waits for other nodes to hand back their leases (two of their rounds) before it looks once more */
const RECLAIM_MS = 2 * ROUND_MS + 50
/** an account whose lease was asked back (or whose balance is short of a block) is leased per call for this long */
const CONTESTED_MS = 10_000

interface Account {
  id: string
  /** leased to this node, not yet charged */
  unused: number
  /** charged in memory, not yet written */
  unwritten: number
  /** the balance as last written (all charges of every node that are written), for `memory` answers */
  credits: number
  /** the unleased balance as last seen */
  unleased: number
  lastUsed: number
  contestedUntil: number
  /** the lease statement under way for this account, if any: resolves to whether it granted */
  leasing: Promise<boolean> | null
  /** the credits the calls waiting for a lease need in all: one statement leases for all of them */
  wanting: number
}

interface Pending {
  charge: Charge
  account: Account
  /** durable: answered when written (by its deadline: 503 while still queued then) */
  resolve?(r: ChargeResult): void
  reject?(e: unknown): void
  deadline: number
  timer?: NodeJS.Timeout
}

type Store = Pick<Sql, 'query' | 'prepared' | 'within'>

export interface LeaseOptions {
  /** CREDIT_LEASE_BLOCK */
  block?: number
  /** CREDIT_DURABILITY */
  durability?: 'durable' | 'memory'
  /** CREDIT_FLUSH_MS */
  flushMs?: number
  /** STORE_TIMEOUT_MS: the bound of each charge's store work */
  timeoutMs?: number
  maxBatch?: number
  /** the node's identity in credit_lease (a fresh one per process) */
  nodeId?: string
  clock?: () => number
  /** keys revoked on any node, learnt at each round */
  onRevoked?: (keyIds: readonly string[]) => void
  /** the round's timer; tests drive rounds by hand */
  autoRound?: boolean
}

export class CreditLeases {
  readonly nodeId: string
  readonly durability: 'durable' | 'memory'
  /** statements written so far (for tests and metrics) */
  batches = 0
  /** charges answered from memory that could not be written (their lease was gone and the balance short) */
  unbilled = 0
  private readonly accounts = new Map<string, Account>()
  private queue: Pending[] = []
  private running: Promise<void> | null = null
  private flushTimer: NodeJS.Timeout | null = null
  private roundTimer: NodeJS.Timeout | null = null
  private revokedSince: Date = new Date(0)
  private stopped = false
  private rounds = 0
  private readonly block: number
  private readonly flushMs: number
  private readonly timeoutMs: number
  private readonly maxBatch: number
  private readonly clock: () => number

  constructor(
    private readonly sql: Store,
    private readonly opts: LeaseOptions = {},
  ) {
    this.nodeId = opts.nodeId ?? crypto.randomUUID()
    this.durability = opts.durability ?? 'durable'
    this.block = opts.block ?? 1000
    this.flushMs = opts.flushMs ?? 100
    this.timeoutMs = opts.timeoutMs ?? 5000
    this.maxBatch = opts.maxBatch ?? 512
    this.clock = opts.clock ?? Date.now
    if (opts.autoRound !== false) this.schedule()
  }

  private schedule(): void {
    this.roundTimer = setTimeout(() => {
      void this.round()
        .catch(() => {})
        .finally(() => {
          if (!this.stopped) this.schedule()
        })
    }, ROUND_MS)
    this.roundTimer.unref()
  }

  private account(id: string): Account {
    let a = this.accounts.get(id)
    if (!a) this.accounts.set(id, (a = { id, unused: 0, unwritten: 0, credits: 0, unleased: 0, lastUsed: 0, contestedUntil: 0, leasing: null, wanting: 0 }))
    return a
  }

  /** the store, bounded by what is left until `deadline` where it can be; null when nothing is left */
  private bounded(deadline: number): Pick<Sql, 'query' | 'prepared'> | null {
    const left = deadline - performance.now()
    if (left < 1) return null
    return this.sql.within ? this.sql.within(left) : this.sql
  }

  async charge(charge: Charge): Promise<ChargeResult> {
    if (!Number.isInteger(charge.cost) || charge.cost <= 0 || !charge.keyId) throw new RangeError(`invalid charge of ${charge.cost}`)
    if (this.stopped) throw storeUnavailable()
    const deadline = performance.now() + this.timeoutMs
    const a = this.account(charge.accountId)
    a.lastUsed = this.clock()
    if (a.unused < charge.cost) {
      a.wanting += charge.cost
      try {
        while (a.unused < charge.cost) {
          const refused = await this.topUp(a, charge.cost, deadline)
          if (refused !== null) return { ok: false, reason: 'insufficient', remaining: refused }
        }
      } finally {
        a.wanting -= charge.cost
      }
    }
    a.unused -= charge.cost
    a.unwritten += charge.cost
    if (this.durability === 'memory') {
      this.queue.push({ charge, account: a, deadline })
      this.flushTimer ??= setTimeout(() => {
        this.flushTimer = null
        this.running ??= this.drain()
      }, this.flushMs)
      return { ok: true, remaining: Math.max(0, a.credits - a.unwritten) }
    }
    return new Promise((resolve, reject) => {
      const p: Pending = { charge, account: a, deadline, resolve, reject }
      p.timer = setTimeout(() => {
        const i = this.queue.indexOf(p)
        if (i < 0) return
        this.queue.splice(i, 1)
        this.giveBack(p)
        reject(storeUnavailable())
      }, Math.max(1, deadline - performance.now()))
      this.queue.push(p)
      this.running ??= this.drain()
    })
  }

  /** a charge that was not written goes back to the lease it came from */
  private giveBack(p: Pending): void {
    p.account.unused += p.charge.cost
    p.account.unwritten -= p.charge.cost
  }

  /**
   * Lease enough for a call of `cost`: null when the lease now covers it (or another call's lease may), else the
   * balance the caller is told it has (402). One lease statement per account at a time; the calls waiting on it look again.
   */
  private async topUp(a: Account, cost: number, deadline: number): Promise<number | null> {
    if (a.leasing) {
      const granted = await a.leasing
      // the statement they waited on found too little for its own call: refuse without another one, unless the lease
      // now covers this call or what is unleased might (a cheaper call than the one refused)
      return granted || a.unused + Math.max(0, a.unleased) >= cost ? null : Math.max(0, a.unleased) + a.unused
    }
    const run = async (): Promise<boolean> => {
      for (let attempt = 0; ; attempt++) {
        const need = cost - a.unused
        const sql = this.bounded(deadline)
        if (!sql) throw storeUnavailable()
        // enough for every call waiting on this account (per call when the account is contested), at least a block otherwise
        const all = Math.max(need, a.wanting - a.unused)
        const contested = a.contestedUntil > this.clock()
        const [r] = await sql.prepared<{ credits: number; leased: number; own: number; granted: number | null }>('credit_lease', LEASE_SQL, [a.id, this.nodeId, need, contested ? all : Math.max(this.block, all), LEASE_TTL_MS])
        if (!r) {
          a.unleased = 0
          return false // no such account
        }
        const granted = r.granted === null ? null : Number(r.granted)
        a.credits = Number(r.credits)
        a.unleased = Number(r.credits) - Number(r.leased)
        if (granted !== null) {
          a.unused += granted
          if (granted < this.block) a.contestedUntil = this.clock() + CONTESTED_MS
          return true
        }
        a.contestedUntil = this.clock() + CONTESTED_MS
        // other nodes hold leases on it (unused, or charged and being written): they were asked to hand the unused part
        // back, which each does at its next write or round; look once more after that (what they still hold then is spent)
        const others = Number(r.leased) - Number(r.own)
        if (others <= 0 || attempt > 0 || performance.now() + RECLAIM_MS > deadline) return false
        await new Promise((res) => setTimeout(res, RECLAIM_MS))
        if (a.unused >= cost) return true
      }
    }
    a.leasing = run()
    try {
      return (await a.leasing) || a.unused >= cost ? null : Math.max(0, a.unleased) + a.unused
    } finally {
      a.leasing = null
    }
  }

  private async drain(): Promise<void> {
    // let the charges of this turn join the first batch
    await new Promise((r) => setImmediate(r))
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch)
      for (const p of batch) clearTimeout(p.timer)
      try {
        await this.write(batch)
      } catch (e) {
        if (this.durability === 'durable') {
          for (const p of batch) {
            this.giveBack(p)
            p.reject!(e)
          }
        } else {
          // answered already: kept, and written at the next attempt
          this.queue.unshift(...batch)
          break
        }
      }
    }
    this.running = null
    if (this.queue.length && this.durability === 'memory' && !this.stopped) {
      this.flushTimer ??= setTimeout(() => {
        this.flushTimer = null
        this.running ??= this.drain()
      }, this.flushMs)
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    const durable = this.durability === 'durable'
    const sql = durable ? this.bounded(Math.min(...batch.map((p) => p.deadline))) : this.bounded(performance.now() + this.timeoutMs)
    if (!sql) throw storeUnavailable()
    this.batches++
    const c = batch.map((p) => p.charge)
    const rows = await sql.prepared<{ i: number; key_ok: boolean; balance_after: number | null; unleased: number | null; wanted: boolean | null; held: boolean | null }>('credit_flush', FLUSH_SQL, [
      c.map((_, i) => i),
      c.map((x) => x.accountId),
      c.map((x) => x.keyId),
      c.map((x) => x.cost),
      c.map((x) => x.endpoint),
      c.map((x) => x.requestId),
      this.nodeId,
      durable,
    ])
    const wanted = new Set<Account>()
    for (const r of rows) {
      const p = batch[Number(r.i)]!
      const a = p.account
      if (r.unleased !== null) a.unleased = Number(r.unleased)
      if (r.wanted) wanted.add(a)
      // the store holds no lease of this node's on the account any more (it expired, or the balance was set by hand):
      // what is left of it in memory is void, and the next call leases again
      if (r.held === false) a.unused = 0
      if (!r.key_ok) {
        // durable only: refused, and its credits back in the lease
        this.giveBack(p)
        p.resolve!({ ok: false, reason: 'revoked' })
      } else if (r.balance_after === null) {
        // the node's lease was gone (expired) and the unleased balance short: not written
        a.unwritten -= p.charge.cost
        if (durable) p.resolve!({ ok: false, reason: 'insufficient', remaining: Math.max(0, a.unleased) })
        else this.unbilled += p.charge.cost
      } else {
        a.unwritten -= p.charge.cost
        // rows come in arrival order: the account's last one is its balance once this batch is written
        a.credits = Number(r.balance_after)
        p.resolve?.({ ok: true, remaining: Number(r.balance_after) })
      }
    }
    for (const a of wanted) await this.handBack(a, true)
  }

  /** return an account's unused lease (asked back by another node, or idle); never fails its caller */
  private async handBack(a: Account, contested: boolean): Promise<void> {
    if (contested) a.contestedUntil = this.clock() + CONTESTED_MS
    const n = a.unused
    if (n <= 0 || a.leasing) return
    a.unused = 0
    try {
      const [r] = await this.sql.query<{ unleased: number }>(RETURN_SQL, [this.nodeId, a.id, n])
      if (r) a.unleased = Number(r.unleased)
    } catch {
      a.unused += n // kept: returned at the next round, or on expiry
    }
  }

  /** one round: leases renewed, expired ones of other nodes returned, idle and asked-back ones handed back, revocations learnt */
  async round(): Promise<void> {
    const held = [...this.accounts.values()]
    const [r] = await this.sql.query<{ wanted: string[]; revoked: string[]; expired: boolean; now: Date }>(ROUND_SQL, [this.nodeId, held.map((a) => a.id), this.revokedSince])
    if (!r) return
    // leases renewed every RENEW_ROUNDS rounds (a write, on the node's own rows only), well within their life
    if (this.rounds++ % RENEW_ROUNDS === 0) await this.sql.query(RENEW_SQL, [this.nodeId, LEASE_TTL_MS])
    if (r.expired) await this.sql.query(EXPIRED_SQL, [this.nodeId])
    // a revocation committed by a statement that began before this round's clock is still seen at the next one
    this.revokedSince = new Date(new Date(r.now).getTime() - 5_000)
    if (r.revoked.length) this.opts.onRevoked?.(r.revoked)
    const wanted = new Set(r.wanted)
    const now = this.clock()
    for (const a of held) {
      if (wanted.has(a.id)) await this.handBack(a, true)
      else if (now - a.lastUsed > IDLE_MS) {
        await this.handBack(a, false)
        if (a.unused === 0 && a.unwritten === 0 && !a.leasing && now - a.lastUsed > IDLE_MS) this.accounts.delete(a.id)
      }
    }
  }

  /** stop: write what is pending, hand every unused lease back (called before the store closes) */
  async close(): Promise<void> {
    this.stopped = true
    if (this.roundTimer) clearTimeout(this.roundTimer)
    if (this.flushTimer) clearTimeout(this.flushTimer)
    this.flushTimer = null
    for (let i = 0; i < 3 && (this.running || this.queue.length); i++) {
      await this.running
      if (this.queue.length) await (this.running = this.drain())
    }
    for (const a of this.accounts.values()) await this.handBack(a, false)
    await this.sql.query(RENEW_SQL, [this.nodeId, LEASE_TTL_MS]).catch(() => {})
  }

  /** what this node holds in memory for an account (tests, /metrics) */
  held(accountId: string): { unused: number; unwritten: number } {
    const a = this.accounts.get(accountId)
    return { unused: a?.unused ?? 0, unwritten: a?.unwritten ?? 0 }
  }
}
