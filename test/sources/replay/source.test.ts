// MARKET_SOURCE=replay:<file> and the REPLAY_* settings, parsed and validated once at start (src/config.ts).
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../../src/config.js'
import { MarketSourceError, parseMarketSource } from '../../../src/sources/connectors/source.js'
import { FIXTURES_RECORDING } from './helpers.js'

describe('MARKET_SOURCE=replay:<file>', () => {
  it('parses the file as written; only the prefix is case-insensitive', () => {
    expect(parseMarketSource('replay:recordings/Fixtures.jsonl')).toEqual({ kind: 'replay', file: 'recordings/Fixtures.jsonl' })
    expect(parseMarketSource(' REPLAY: /tmp/a b.jsonl ')).toEqual({ kind: 'replay', file: '/tmp/a b.jsonl' })
    expect(() => parseMarketSource('replay:')).toThrow(MarketSourceError)
    // not combinable: a replay inside a list is an unknown source
    expect(() => parseMarketSource('binance,replay:x.jsonl')).toThrow(/unknown source "replay:x.jsonl"/)
  })

  it('config: the file must be readable; the REPLAY_* settings have their defaults and bounds', () => {
    const c = loadConfig({ MARKET_SOURCE: `replay:${FIXTURES_RECORDING}` })
    expect([c.REPLAY_SPEED, c.REPLAY_LOOP, c.REPLAY_MAX_GAP_MS]).toEqual([1, false, 60_000])
    expect(loadConfig({ MARKET_SOURCE: `replay:${FIXTURES_RECORDING}`, REPLAY_SPEED: '20', REPLAY_LOOP: '1', REPLAY_MAX_GAP_MS: '5000' })).toMatchObject({
      REPLAY_SPEED: 20,
      REPLAY_LOOP: true,
      REPLAY_MAX_GAP_MS: 5000,
    })
    expect(() => loadConfig({ MARKET_SOURCE: 'replay:/no/such/recording.jsonl' })).toThrow(/replay file "\/no\/such\/recording.jsonl" is not a readable file/)
    expect(() => loadConfig({ MARKET_SOURCE: 'replay:/tmp' })).toThrow(ConfigError)
    expect(() => loadConfig({ REPLAY_SPEED: '0.5' })).toThrow(/REPLAY_SPEED/)
    expect(() => loadConfig({ REPLAY_LOOP: 'yes' })).toThrow(/REPLAY_LOOP must be 0 or 1/)
    expect(() => loadConfig({ REPLAY_MAX_GAP_MS: '10' })).toThrow(/REPLAY_MAX_GAP_MS/)
  })
})
