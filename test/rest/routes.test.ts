import { describe, expect, it } from 'vitest'
import { ROUTES } from '../../src/rest/routes.js'

describe('route table', () => {
  it('pins the credit cost of all 11 analytics paths (interface.md)', () => {
    expect(Object.fromEntries(ROUTES.map((r) => [r.path, r.cost]))).toEqual({
      '/v1/markets/ohlc': 2,
      '/v1/structure/volume-profile': 3,
      '/v1/signals/liquidation-cascade': 5,
      '/v1/markets/exchanges': 1,
      '/v1/signals/snapshot': 10,
      '/v1/signals/divergence': 5,
      '/v1/structure/spread': 3,
      '/v1/funding/weighted': 3,
      '/v1/flow/imbalance': 5,
      '/v1/markets/ticker': 1,
      '/v1/oi/changes': 3,
    })
  })

  it('pins each endpoint\'s parameters (docs/contract.md#parameters-per-endpoint)', () => {
    const params = Object.fromEntries(ROUTES.map((r) => [r.path, r.params.map((p) => `${p.name}${p.required ? '!' : ''}`)]))
    expect(params).toEqual({
      '/v1/markets/ohlc': ['coin!', 'exchange', 'interval', 'lookback', 'market_type', 'end'],
      '/v1/structure/volume-profile': ['coin!', 'lookback', 'bins', 'exchange', 'market_type', 'end'],
      '/v1/signals/liquidation-cascade': ['coin!', 'trigger_price!', 'exchange'],
      '/v1/markets/exchanges': [],
      '/v1/signals/snapshot': [],
      '/v1/signals/divergence': ['coin'],
      '/v1/structure/spread': ['coin'],
      '/v1/funding/weighted': ['coin'],
      '/v1/flow/imbalance': ['coin', 'exchange'],
      '/v1/markets/ticker': ['coin', 'exchange'],
      '/v1/oi/changes': ['coin'],
    })
  })
})
