import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config.js'

describe('configuration', () => {
  it('defaults: embedded store (PostgreSQL) in ./data, auto source (live if a venue answers, else the simulator), 30 days, 1000 trial credits, 50 rps', () => {
    const c = loadConfig({})
    expect(c.store).toEqual({ kind: 'embedded', engine: 'postgres', dataDir: path.resolve('./data'), timeoutMs: 5000 })
    expect([c.PORT, c.HOST, c.MARKET_SOURCE, c.BACKFILL_DAYS, c.TRIAL_CREDITS, c.RATE_LIMIT_RPS, c.STRIPE_WEBHOOK_SECRET]).toEqual([8080, '127.0.0.1', 'auto', 30, 1000, 50, undefined])
  })

  it('COINS: unset = the default coins, all = the universe, or a list (upper-cased, trimmed)', () => {
    expect(loadConfig({}).COINS).toBe('default')
    expect(loadConfig({ COINS: '' }).COINS).toBe('default')
    expect(loadConfig({ COINS: ' ALL ' }).COINS).toBe('all')
    expect(loadConfig({ COINS: 'btc, eth,PEPE,' }).COINS).toEqual(['BTC', 'ETH', 'PEPE'])
  })

  it('proxies, origins and limits: defaults and lists', () => {
    const d = loadConfig({})
    expect([d.TRUST_PROXY, d.CORS_ORIGINS, d.METRICS_TOKEN, d.SIGNUP_LIMIT, d.STORE_TIMEOUT_MS]).toEqual([[], ['*'], undefined, 5, 5000])
    const c = loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8,::1', CORS_ORIGINS: 'https://a.example,http://localhost:5173' })
    expect(c.TRUST_PROXY).toEqual(['loopback', '10.0.0.0/8', '::1'])
    expect(c.CORS_ORIGINS).toEqual(['https://a.example', 'http://localhost:5173'])
  })

  it('reaching the venues: per-venue REST/WS base URLs, testnets and the proxy become each venue\'s access', () => {
    const none = loadConfig({}).venueAccess
    expect(Object.keys(none)).toEqual(['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'])
    expect(none.binance).toEqual({ testnet: false, noProxy: [] })
    const c = loadConfig({
      BINANCE_REST_URL: 'http://127.0.0.1:8801/',
      BINANCE_WS_URL: 'ws://127.0.0.1:8801',
      OKX_REST_URL: 'https://relay.example/okx',
      DYDX_TESTNET: '1',
      HTTPS_PROXY: 'http://proxy.example:3128',
      NO_PROXY: 'localhost, .internal',
    }).venueAccess
    expect(c.binance).toEqual({ restUrl: 'http://127.0.0.1:8801', wsUrl: 'ws://127.0.0.1:8801', testnet: false, httpsProxy: 'http://proxy.example:3128', noProxy: ['localhost', '.internal'] })
    expect(c.okx.restUrl).toBe('https://relay.example/okx')
    expect(c.okx.wsUrl).toBeUndefined()
    expect([c.dydx.testnet, c.bybit.testnet]).toEqual([true, false])
  })

  it.each([
    [{ BINANCE_REST_URL: 'ftp://x.example' }, /BINANCE_REST_URL must be a http:\/\/ or https:\/\/ origin/],
    [{ BYBIT_REST_URL: 'https://x.example/?a=1' }, /BYBIT_REST_URL/],
    [{ OKX_WS_URL: 'https://ws.example' }, /OKX_WS_URL must be a ws:\/\/ or wss:\/\/ origin/],
    [{ HYPERLIQUID_REST_URL: 'not a url' }, /HYPERLIQUID_REST_URL/],
    [{ DYDX_TESTNET: 'yes' }, /DYDX_TESTNET must be 0 or 1/],
    [{ HTTPS_PROXY: 'socks5://p:1080' }, /HTTPS_PROXY must be an http:\/\/ or https:\/\/ proxy URL/],
  ])('refuses a bad venue setting: %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(message)
  })

  it('a postgres URL switches the store; EMBEDDED_STORE picks the embedded engine; pglite: URLs are gone', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db' }).store).toEqual({ kind: 'postgres', url: 'postgres://u@h:5432/db', timeoutMs: 5000 })
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db', STORE_TIMEOUT_MS: '1500' }).store).toEqual({ kind: 'postgres', url: 'postgres://u@h:5432/db', timeoutMs: 1500 })
    expect(loadConfig({ EMBEDDED_STORE: 'pglite', DATA_DIR: '/srv/d' }).store).toEqual({ kind: 'embedded', engine: 'pglite', dataDir: '/srv/d', timeoutMs: 5000 })
    expect(() => loadConfig({ EMBEDDED_STORE: 'sqlite' })).toThrow(/EMBEDDED_STORE/)
    expect(() => loadConfig({ DATABASE_URL: 'pglite:memory' })).toThrow(/DATABASE_URL must be a postgres:\/\/ URL/)
  })

  it.each([
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ PORT: 'eighty' }, /PORT/],
    [{ RATE_LIMIT_RPS: '-1' }, /RATE_LIMIT_RPS/],
    [{ MARKET_SOURCE: 'binance,kraken' }, /MARKET_SOURCE: unknown source "kraken"/],
    [{ MARKET_SOURCE: 'simulator,okx' }, /MARKET_SOURCE/],
    [{ TRUST_PROXY: 'true' }, /TRUST_PROXY/],
    [{ COINS: 'BTC,ETH-PERP' }, /COINS must be all or a comma-separated list of coin symbols/],
    [{ COINS: ',' }, /COINS/],
    [{ TRUST_PROXY: '10.0.0.0/33' }, /TRUST_PROXY/],
    [{ CORS_ORIGINS: 'app.example.com' }, /CORS_ORIGINS/],
    [{ CORS_ORIGINS: 'https://app.example.com/path' }, /CORS_ORIGINS/],
    [{ METRICS_TOKEN: 'short' }, /METRICS_TOKEN/],
    [{ STORE_TIMEOUT_MS: '10' }, /STORE_TIMEOUT_MS/],
    [{ STREAM_MAX_PER_KEY: '0' }, /STREAM_MAX_PER_KEY/],
    [{ STREAM_BUFFER_BYTES: '1000' }, /STREAM_BUFFER_BYTES/],
    // a replay is written at once: it must fit in half the buffer, or a reconnect would be dropped as slow
    [{ STREAM_BUFFER_BYTES: '131072', STREAM_REPLAY_BYTES: '131072' }, /STREAM_REPLAY_BYTES \(131072\) must be at most half of STREAM_BUFFER_BYTES \(131072\)/],
  ])('refuses %j with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    expect(() => loadConfig(env)).toThrow(message)
  })
  it('roles: all by default; ingest and api need PostgreSQL and NATS; ingest needs a source; MARKET_SOURCE=none is real', () => {
    expect(loadConfig({}).ROLE).toBe('all')
    expect(loadConfig({ MARKET_SOURCE: 'none' }).MARKET_SOURCE).toBe('none')
    const pgNats = { DATABASE_URL: 'postgres://u@h:5432/db', NATS_URL: 'nats://127.0.0.1:4222' }
    expect(loadConfig({ ...pgNats, ROLE: 'api', REDIS_URL: 'redis://127.0.0.1:6379' })).toMatchObject({ ROLE: 'api', REDIS_URL: 'redis://127.0.0.1:6379' })
    expect(loadConfig({ ...pgNats, ROLE: 'ingest' }).ROLE).toBe('ingest')
    expect(() => loadConfig({ ROLE: 'api', NATS_URL: 'nats://127.0.0.1:4222' })).toThrow(/ROLE=api needs DATABASE_URL=postgres:\/\/.*embedded store .*belongs to one process/)
    expect(() => loadConfig({ ROLE: 'ingest', DATABASE_URL: 'postgres://u@h:5432/db' })).toThrow(/ROLE=ingest needs NATS_URL/)
    expect(() => loadConfig({ ...pgNats, ROLE: 'ingest', MARKET_SOURCE: 'none' })).toThrow(/nothing to ingest/)
    expect(() => loadConfig({ ROLE: 'web' })).toThrow(/ROLE must be all, ingest or api/)
    expect(() => loadConfig({ NATS_URL: 'http://x' })).toThrow(/NATS_URL must be a nats:\/\/ URL/)
    expect(() => loadConfig({ REDIS_URL: 'localhost:6379' })).toThrow(/REDIS_URL must be a redis:\/\//)
    expect(() => loadConfig({ MARKET_SOURCE: 'none,binance' })).toThrow(/"none" cannot be combined/)
  })
})
