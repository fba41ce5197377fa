// MarketState's feed status: freshness, and a venue marked degraded (a replay that cannot answer a call) until cleared.
import { describe, expect, it } from 'vitest'
import { MarketState } from '../../src/read/state.js'
import type { Database } from '../../src/store/database.js'

describe('MarketState.degrade', () => {
  const now = 1_800_000_000_000
  const market = () => new MarketState({} as Database, () => now)

  it('a fresh or stale feed reads degraded while marked; a down feed stays down; clearDegraded restores freshness', () => {
    const m = market()
    m.touch('bybit', now - 1_000)
    expect(m.status('bybit', now)).toBe('operational')
    m.degrade('bybit', 'replay: the recording has no response for GET /v5/market/funding/history')
    expect(m.status('bybit', now)).toBe('degraded')
    expect(m.degradedReason('bybit')).toBe('replay: the recording has no response for GET /v5/market/funding/history')
    // silence past the down threshold (120 s) wins over the mark
    expect(m.status('bybit', now + 200_000)).toBe('down')
    // a venue never heard from is down, marked or not
    m.degrade('okx', 'x')
    expect(m.status('okx', now)).toBe('down')
    m.clearDegraded('bybit')
    expect(m.status('bybit', now)).toBe('operational')
    expect(m.degradedReason('bybit')).toBeNull()
    expect(m.degradedReason('binance')).toBeNull()
  })
})
