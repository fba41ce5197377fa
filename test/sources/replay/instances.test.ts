// The recorder and the replay hook the same CCXT classes the live connectors create for themselves.
import { describe, expect, it } from 'vitest'
import { createConnector } from '../../../src/sources/connectors/index.js'
import { EXCHANGE_IDS } from '../../../src/domain/exchanges.js'
import { ccxtInstances, instanceList } from '../../../src/sources/replay/instances.js'

describe('ccxtInstances', () => {
  it('per venue, the classes a connector makes when none is given (Binance: USD-M perps and spot)', () => {
    for (const venue of EXCHANGE_IDS) {
      const own = (createConnector(venue, { coins: ['BTC'], sink: { emit: () => {} } }) as unknown as { instances(): Array<{ constructor: unknown; id: string }> }).instances()
      const ours = instanceList(ccxtInstances(venue))
      expect(ours.map((e) => e.constructor), venue).toEqual(own.map((e) => e.constructor))
    }
    expect(instanceList(ccxtInstances('binance')).map((e) => e.id)).toEqual(['binanceusdm', 'binance'])
    expect(ccxtInstances('binance', ['perp']).spot).toBeUndefined()
  })
})
