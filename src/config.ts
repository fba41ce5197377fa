// The environment, validated once. Every setting the service reads is here, with its default (see .env.example).
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import os from 'node:os'
import { z } from 'zod'
import { MarketSourceError, parseMarketSource } from './sources/connectors/source.js'
import { EXCHANGE_IDS, type ExchangeId } from './domain/exchanges.js'
import type { VenueAccess } from './sources/connectors/venue-access.js'
import { engineDir } from './store/embedded/index.js'

const intFrom = (def: number, min = 0) => z.coerce.number().int().min(min).default(def)
const list = (v: string) => v.split(',').map((x) => x.trim()).filter(Boolean)

/** Express's named ranges, an IP address, or a CIDR block (what proxy-addr, behind `trust proxy`, accepts) */
const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal']
const isProxySpec = (v: string) => {
  if (PROXY_NAMES.includes(v)) return true
  const [addr, bits, ...rest] = v.split('/')
  const kind = net.isIP(addr ?? '')
  if (!kind || rest.length) return false
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (kind === 4 ? 32 : 128))
}
const isOrigin = (v: string) => {
  if (v === '*') return true
  try {
    const u = new URL(v)
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === v
  } catch {
    return false
  }
}

const optionalUrl = (protocols: string[], message: string) =>
  z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || v.split(',').every((u) => URL.canParse(u.trim()) && protocols.includes(new URL(u.trim()).protocol)), { message })

/** a venue base URL: scheme and host[:port], optionally a path prefix; no query or fragment; trailing slash dropped */
const baseUrl = (name: string, protocols: string[]) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim().replace(/\/+$/, '')))
    .refine(
      (v) => {
        if (v === undefined) return true
        if (!URL.canParse(v)) return false
        const u = new URL(v)
        return protocols.includes(u.protocol) && !u.search && !u.hash && !u.username && !u.password
      },
      { message: `${name} must be a ${protocols.map((p) => `${p}//`).join(' or ')} origin (optionally with a path prefix), without query or credentials` },
    )
const restBase = (name: string) => baseUrl(name, ['http:', 'https:'])
const wsBase = (name: string) => baseUrl(name, ['ws:', 'wss:'])
const flag = (name: string) => z.enum(['0', '1', 'true', 'false', ''], { message: `${name} must be 0 or 1` }).default('0').transform((v) => v === '1' || v === 'true')
const proxyUrl = (name: string) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .refine((v) => v === undefined || (URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol)), { message: `${name} must be an http:// or https:// proxy URL` })

const EnvSchema = z.object({
  PORT: intFrom(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), {
      message: 'DATABASE_URL must be a postgres:// URL; leave it unset for the embedded store (in DATA_DIR)',
    }),
  /** the embedded store's engine (without DATABASE_URL): postgres (a PostgreSQL server this service starts, in DATA_DIR/pg) or pglite (PGlite in a thread, in DATA_DIR/pglite) */
  EMBEDDED_STORE: z.enum(['postgres', 'pglite']).default('postgres'),
  /** auto (default): live when a venue answers at start, else the simulator; simulator, live, a list of venues, replay:<file>, none */
  MARKET_SOURCE: z.string().default('auto'),
  /** reaching the venues (docs/connectors.md#reaching-the-venues): a base URL replacing every REST / WebSocket host of a venue */
  BINANCE_REST_URL: restBase('BINANCE_REST_URL'),
  BINANCE_WS_URL: wsBase('BINANCE_WS_URL'),
  BYBIT_REST_URL: restBase('BYBIT_REST_URL'),
  BYBIT_WS_URL: wsBase('BYBIT_WS_URL'),
  OKX_REST_URL: restBase('OKX_REST_URL'),
  OKX_WS_URL: wsBase('OKX_WS_URL'),
  HYPERLIQUID_REST_URL: restBase('HYPERLIQUID_REST_URL'),
  HYPERLIQUID_WS_URL: wsBase('HYPERLIQUID_WS_URL'),
  DYDX_REST_URL: restBase('DYDX_REST_URL'),
  DYDX_WS_URL: wsBase('DYDX_WS_URL'),
  /** 1: the venue's testnet (CCXT's sandbox URLs), overrides applied on top */
  BINANCE_TESTNET: flag('BINANCE_TESTNET'),
  BYBIT_TESTNET: flag('BYBIT_TESTNET'),
  OKX_TESTNET: flag('OKX_TESTNET'),
  HYPERLIQUID_TESTNET: flag('HYPERLIQUID_TESTNET'),
  DYDX_TESTNET: flag('DYDX_TESTNET'),
  /** the proxy venue calls go through: HTTPS_PROXY for https/wss targets, HTTP_PROXY for http/ws ones; NO_PROXY hosts go direct */
  HTTPS_PROXY: proxyUrl('HTTPS_PROXY'),
  HTTP_PROXY: proxyUrl('HTTP_PROXY'),
  NO_PROXY: z.string().default('').transform(list),
  /** MARKET_SOURCE=replay:<file>: how many times faster than recorded the first pass plays (>= 1; docs/recordings.md) */
  REPLAY_SPEED: z.coerce.number().min(1).max(10_000).default(1),
  /** MARKET_SOURCE=replay:<file>: 1 plays the recording again and again, each pass shifted by one more duration */
  REPLAY_LOOP: z
    .enum(['0', '1', 'true', 'false'], { message: 'REPLAY_LOOP must be 0 or 1' })
    .default('0')
    .transform((v) => v === '1' || v === 'true'),
  /** MARKET_SOURCE=replay:<file>: silences between recorded lines longer than this are cut out, ms */
  REPLAY_MAX_GAP_MS: intFrom(60_000, 1_000),
  BACKFILL_DAYS: z.coerce.number().min(0).max(365).default(30),
  SIM_SEED: intFrom(42),
  TRIAL_CREDITS: intFrom(1000),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
  /** the key paging cursors are sealed with; unset: one made once and kept in the store (docs/operations.md#caps-and-bounds) */
  CURSOR_SECRET: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || v.length >= 32, { message: 'CURSOR_SECRET must be at least 32 characters (e.g. openssl rand -hex 32)' }),
  /** tolerance for the Stripe-Signature timestamp, seconds */
  STRIPE_WEBHOOK_TOLERANCE: intFrom(300, 1),
  RATE_LIMIT_RPS: z.coerce.number().min(0).default(50),
  /** failed authentications per client address per minute before 429 (key brute-force guard) */
  AUTH_FAILURE_LIMIT: intFrom(30),
  /** signups per client address per hour (0 = off) */
  SIGNUP_LIMIT: intFrom(5),
  /** proxies whose X-Forwarded-For is believed: addresses, CIDR blocks or loopback/linklocal/uniquelocal; empty = none */
  TRUST_PROXY: z
    .string()
    .default('')
    .transform(list)
    .refine((v) => v.every(isProxySpec), { message: 'TRUST_PROXY must be a comma-separated list of IP addresses, CIDR blocks, or loopback, linklocal, uniquelocal' }),
  /** origins a browser may call the API from (CORS); * = any. Credentials (cookies) are never allowed */
  CORS_ORIGINS: z
    .string()
    .default('*')
    .transform(list)
    .refine((v) => v.length > 0 && v.every(isOrigin), { message: 'CORS_ORIGINS must be * or a comma-separated list of origins such as https://app.example.com' }),
  /** when set, /metrics requires "Authorization: Bearer <token>"; unset, /metrics answers loopback clients only */
  METRICS_TOKEN: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || v.length >= 16, { message: 'METRICS_TOKEN must be at least 16 characters' }),
  /** heavy calls (docs/operations.md#heavy-calls): run at once per node, waiting per node, admitted at once per key, waiting per key */
  HEAVY_CONCURRENCY: intFrom(2, 1),
  HEAVY_QUEUE: intFrom(64, 0),
  HEAVY_PER_KEY: intFrom(4, 1),
  HEAVY_KEY_QUEUE: intFrom(16, 0),
  /** worker threads for CPU-heavy analytics (the liquidation map); 0 = on the event loop. Default: the cores less one, at least one */
  ANALYTICS_THREADS: intFrom(Math.max(1, os.availableParallelism() - 1), 0),
  /** the most a store statement, a lock wait or a connection wait may take, ms (PostgreSQL) */
  STORE_TIMEOUT_MS: intFrom(5000, 100),
  /** credits a node leases from an account at a time and charges in memory (src/accounts/credit-leases.ts; docs/operations.md#caps-and-bounds) */
  CREDIT_LEASE_BLOCK: intFrom(1000, 1),
  /** durable: a metered answer waits until its charge's batch is written; memory: answered at once, written every CREDIT_FLUSH_MS */
  CREDIT_DURABILITY: z.enum(['durable', 'memory'], { message: 'CREDIT_DURABILITY must be durable or memory' }).default('durable'),
  /** CREDIT_DURABILITY=memory: how often the charges answered from memory are written, ms */
  CREDIT_FLUSH_MS: intFrom(100, 10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** credits the demo account starts with (only created when the store has no account) */
  DEMO_CREDITS: intFrom(100_000),
  /** all: one process does everything (default); ingest: market source, store writes, bus publishing; api: HTTP only */
  ROLE: z.enum(['all', 'ingest', 'api'], { message: 'ROLE must be all, ingest or api' }).default('all'),
  /** NATS with JetStream (nats://host:port[,nats://…]): ingest publishes live state there, API nodes follow it */
  NATS_URL: optionalUrl(['nats:', 'tls:'], 'NATS_URL must be a nats:// URL (several: comma-separated)'),
  /** Redis (redis://host:port[/db]) for the rate-limit and auth-failure counters shared by every API node */
  REDIS_URL: optionalUrl(['redis:', 'rediss:'], 'REDIS_URL must be a redis:// or rediss:// URL'),
  /** the most a request waits for Redis; a command unanswered this long opens the circuit (src/rest/rate-limit-store.ts) */
  REDIS_COMMAND_TIMEOUT_MS: intFrom(200, 10),
  /** the bus's subject prefix and stream-name stem: one per deployment sharing a NATS server */
  BUS_PREFIX: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, { message: 'BUS_PREFIX must be 1-32 letters, digits, _ or -' }).default('perp'),
  /**
   * the coins followed: unset = the 12 default coins (and coins imported into the store); a comma-separated list; or
   * all = every coin with a linear USDT or USDC perp on at least 2 of the 5 venues, from their market lists, refreshed
   * daily (live sources only; the simulator simulates the default coins). docs/connectors.md#the-universe
   */
  COINS: z
    .string()
    .default('')
    .transform((v): 'default' | 'all' | string[] => (v.trim() === '' ? 'default' : v.trim().toLowerCase() === 'all' ? 'all' : list(v).map((c) => c.toUpperCase())))
    .refine((v) => typeof v === 'string' || (v.length > 0 && v.every((c) => /^[A-Z0-9]{1,20}$/.test(c))), { message: 'COINS must be all or a comma-separated list of coin symbols (e.g. BTC,ETH,SOL)' }),
  /** MARKET_SOURCE=simulator: the coins simulated (comma-separated); default the default universe */
  SIM_COINS: z
    .string()
    .default('')
    .transform((v) => list(v).map((c) => c.toUpperCase()))
    .refine((v) => v.every((c) => /^[A-Z0-9]{1,20}$/.test(c)), { message: 'SIM_COINS must be a comma-separated list of coin symbols' }),
  /** how often an ingest node on PostgreSQL tries to take the writer lease of a venue it does not hold, ms */
  LEASE_POLL_MS: intFrom(2000, 100),
  /** GET /v1/stream: the metered minute (1 credit per channel each), ms; shorter only in tests */
  STREAM_MINUTE_MS: intFrom(60_000, 100),
  /** GET /v1/stream: a comment line this often keeps proxies from closing an idle stream, ms */
  STREAM_HEARTBEAT_MS: intFrom(15_000, 100),
  /** streams (GET /v1/stream and the GraphQL subscription) open at once per API key, and per account (docs/operations.md#caps-and-bounds) */
  STREAM_MAX_PER_KEY: intFrom(10, 1),
  STREAM_MAX_PER_ACCOUNT: intFrom(20, 1),
  /** a stream's unsent bytes past which its reader is dropped as too slow (a final `slow_reader` event) */
  STREAM_BUFFER_BYTES: intFrom(1024 * 1024, 64 * 1024),
  /** the most a reconnect (Last-Event-ID) replays: the newest events up to this many, and up to this many bytes of frames */
  STREAM_REPLAY_EVENTS: intFrom(1000, 1),
  STREAM_REPLAY_BYTES: intFrom(256 * 1024, 1024),
  /** alerts: deliveries to 127.0.0.1/::1 are allowed (local receivers, tests); private and link-local never */
  ALERT_ALLOW_LOOPBACK: z.enum(['0', '1']).default('0').transform((v) => v === '1'),
  /** push: the computed channels (imbalance, divergence, regime) and the funding z-score alert rules read are recomputed this often, ms */
  PUSH_SIGNAL_MS: intFrom(10_000, 50),
  /** alerts: rules are evaluated and due deliveries sent this often, ms */
  ALERT_POLL_MS: intFrom(1000, 20),
  /** alerts: the first retry after a failed delivery, ms; each next one waits twice as long (at most an hour), for 24 h */
  ALERT_RETRY_BASE_MS: intFrom(10_000, 10),
})

type Env = z.infer<typeof EnvSchema>

export interface Config extends Env {
  /** where the store lives: the embedded store (a server this service starts, its data in DATA_DIR), or a PostgreSQL URL */
  store:
    | { kind: 'embedded'; engine: 'postgres' | 'pglite'; /** DATA_DIR, resolved */ dataDir: string; /** STORE_TIMEOUT_MS */ timeoutMs?: number }
    | { kind: 'postgres'; url: string; /** STORE_TIMEOUT_MS */ timeoutMs?: number }
  /** per venue: its <VENUE>_REST_URL, _WS_URL, _TESTNET and the proxy settings */
  venueAccess: Record<ExchangeId, VenueAccess>
}

/** the <VENUE>_* settings and the proxy of each venue, as the connectors take them */
function venueAccessOf(e: Env): Record<ExchangeId, VenueAccess> {
  const env = e as unknown as Record<string, string | boolean | undefined>
  const out = {} as Record<ExchangeId, VenueAccess>
  for (const id of EXCHANGE_IDS) {
    const p = id.toUpperCase()
    const a: VenueAccess = { testnet: env[`${p}_TESTNET`] === true, noProxy: e.NO_PROXY }
    if (typeof env[`${p}_REST_URL`] === 'string') a.restUrl = env[`${p}_REST_URL`] as string
    if (typeof env[`${p}_WS_URL`] === 'string') a.wsUrl = env[`${p}_WS_URL`] as string
    if (e.HTTPS_PROXY) a.httpsProxy = e.HTTPS_PROXY
    if (e.HTTP_PROXY) a.httpProxy = e.HTTP_PROXY
    out[id] = a
  }
  return out
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`)
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`)
  }
  const e = parsed.data
  try {
    const source = parseMarketSource(e.MARKET_SOURCE)
    if (source.kind === 'replay') checkReadable(source.file)
  } catch (err) {
    if (err instanceof MarketSourceError) throw new ConfigError(`invalid configuration:\n  ${err.message}`)
    throw err
  }
  let store: Config['store']
  if (e.DATABASE_URL) store = { kind: 'postgres', url: e.DATABASE_URL, timeoutMs: e.STORE_TIMEOUT_MS }
  else store = { kind: 'embedded', engine: e.EMBEDDED_STORE, dataDir: path.resolve(e.DATA_DIR), timeoutMs: e.STORE_TIMEOUT_MS }
  checkRole(e, store)
  // a replay is written at once: it must leave room under the buffer cap, or every reconnect would be dropped as slow
  if (e.STREAM_REPLAY_BYTES > e.STREAM_BUFFER_BYTES / 2)
    throw new ConfigError(`invalid configuration:\n  STREAM_REPLAY_BYTES (${e.STREAM_REPLAY_BYTES}) must be at most half of STREAM_BUFFER_BYTES (${e.STREAM_BUFFER_BYTES})`)
  return { ...e, store, venueAccess: venueAccessOf(e) }
}

/** the mixes of ROLE, store, bus and source that cannot work, refused at start with what to change */
function checkRole(e: Env, store: Config['store']): void {
  const problems: string[] = []
  if (e.ROLE !== 'all' && store.kind !== 'postgres')
    problems.push(`ROLE=${e.ROLE} needs DATABASE_URL=postgres://…: the embedded store (${store.kind === 'embedded' ? engineDir(store.dataDir, store.engine) : ''}) belongs to one process, so no other node could read what ingest writes or write what API nodes charge; use ROLE=all for one process`)
  if (e.ROLE !== 'all' && !e.NATS_URL) problems.push(`ROLE=${e.ROLE} needs NATS_URL (ingest publishes live tickers, books and data versions there; API nodes follow them)`)
  if (e.ROLE === 'ingest' && parseMarketSource(e.MARKET_SOURCE).kind === 'none') problems.push('ROLE=ingest with MARKET_SOURCE=none has nothing to ingest; set MARKET_SOURCE')
  if (problems.length) throw new ConfigError(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`)
}

function checkReadable(file: string): void {
  try {
    fs.accessSync(path.resolve(file), fs.constants.R_OK)
    if (!fs.statSync(path.resolve(file)).isFile()) throw new Error('not a file')
  } catch {
    throw new MarketSourceError(`MARKET_SOURCE: replay file ${JSON.stringify(file)} is not a readable file (resolved to ${path.resolve(file)})`)
  }
}
