// Fixed-window counters on the double's clock: the venues' documented request limits (weight per minute, requests per
// 5 minutes or per second). A window starts on a multiple of its length (Binance's X-MBX-USED-WEIGHT-1M resets on
// the minute).

export interface WindowState {
  /** used in the current window, this request included */
  used: number
  limit: number
  /** this request pushed the window over its limit */
  over: boolean
  /** when the current window ends, ms */
  resetAt: number
}

export class WindowCounter {
  private window = -1
  private used = 0

  constructor(
    readonly windowMs: number,
    readonly limit: number,
    private readonly now: () => number,
  ) {}

  /** adds a request of `cost`; over when the window's total exceeds the limit */
  add(cost: number): WindowState {
    const state = this.peek()
    this.used += cost
    return { ...state, used: this.used, over: this.used > this.limit }
  }

  /** the current window without adding to it */
  peek(): WindowState {
    const t = this.now()
    const w = Math.floor(t / this.windowMs)
    if (w !== this.window) {
      this.window = w
      this.used = 0
    }
    return { used: this.used, limit: this.limit, over: this.used > this.limit, resetAt: (w + 1) * this.windowMs }
  }
}
