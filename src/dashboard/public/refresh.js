// Auto-refresh of one view: the next call goes out one period after the last answer (never two at once),
// later when the service asked for a pause (Retry-After), and not at all while the tab is hidden: a
// dashboard left in a background tab spends no credits. Off until the reader turns it on.

const active = new Set()
const isHidden = () => document.visibilityState === 'hidden'

document.addEventListener('visibilitychange', () => {
  for (const r of active) r.visibilityChanged()
})

/** credits an hour of refreshing costs: calls per hour (rounded up) times the cost of one */
export const creditsPerHour = (periodMs, cost) => Math.ceil(3_600_000 / periodMs) * cost

export class AutoRefresh {
  /**
   * @param {{ period: () => number | null, run: () => Promise<void>, onState: (s: { state: 'off' | 'on' | 'paused', nextAt: number | null }) => void }} opts
   *   period: ms between calls for the current parameters (null: nothing to refresh, e.g. a fixed past window)
   */
  constructor({ period, run, onState }) {
    this.period = period
    this.run = run
    this.onState = onState
    this.enabled = false
    this.timer = null
    this.nextAt = null
    this.lastAt = null
    this.busy = false
  }

  enable() {
    if (this.enabled || !this.period()) return
    this.enabled = true
    active.add(this)
    this.resume()
  }

  disable() {
    this.enabled = false
    active.delete(this)
    this.clear()
    this.emit()
  }

  /** the view answered (an automatic or a manual call): the next automatic call is one period from now */
  answered(at, retryAfterMs = null) {
    this.lastAt = at
    if (!this.enabled) return
    this.schedule(Math.max(this.period() ?? 0, retryAfterMs ?? 0))
  }

  /** the parameters changed: refresh at once with the new ones */
  restart() {
    if (!this.enabled) return
    if (!this.period()) return this.disable()
    this.clear()
    if (!isHidden()) void this.fire()
    else this.emit()
  }

  visibilityChanged() {
    if (!this.enabled) return
    if (isHidden()) {
      this.clear()
      this.emit()
    } else this.resume()
  }

  resume() {
    if (isHidden()) return this.emit()
    const period = this.period()
    const due = this.lastAt === null ? 0 : this.lastAt + period - Date.now()
    if (due <= 0) void this.fire()
    else this.schedule(due)
  }

  schedule(delay) {
    this.clear()
    if (isHidden()) return this.emit()
    this.nextAt = Date.now() + delay
    this.timer = setTimeout(() => void this.fire(), delay)
    this.emit()
  }

  async fire() {
    this.clear()
    if (!this.enabled || this.busy || isHidden()) return this.emit()
    this.busy = true
    this.emit()
    try {
      // the view reports its answer through answered(), like a manual load does
      await this.run()
    } finally {
      this.busy = false
      if (this.enabled && this.timer === null && !isHidden()) this.schedule(this.period() ?? 60_000)
    }
  }

  clear() {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.nextAt = null
  }

  emit() {
    this.onState({ state: !this.enabled ? 'off' : isHidden() ? 'paused' : 'on', nextAt: this.nextAt })
  }
}
