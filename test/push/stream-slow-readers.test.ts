// Slow readers on GET /v1/stream (issue 31, item 3), on a real port: the adversarial script that found it opened
// streams that never read, every channel, each asking to resume from id 0 (Last-Event-ID: 0), and the server's
// memory grew by what each replay and every later event held for them. Here 200 such readers, from a child process
// (its memory is not the server's), against a hub holding a full replay's worth of events: the server's memory
// stays within 200 × (the per-connection buffer cap + a connection's own state) + a fixed slack, every reader is
// dropped once its buffer is full, and a reader that reads again finds the final event saying why.
import { spawn, type ChildProcess } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { liveDraft } from '../../src/read/stream/drafts.js'
import type { TickerEvent } from '../../src/domain/events.js'
import { DEFAULT_COINS } from '../../src/domain/coins.js'
import { STREAM_CHANNELS } from '../../src/read/stream/hub.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { killed } from '../helpers/child.js'
import { sseReader, until } from './sse-client.js'

/** the documented bounds (docs/operations.md, "Caps and bounds"): the per-connection buffer and streams per key and account */
const BUFFER_BYTES = 1024 * 1024
const PER_KEY = 10
const PER_ACCOUNT = 20
/** what one open connection holds besides its buffer (socket, parser, request, closures), generously */
const CONNECTION_BYTES = 64 * 1024
/** the heap's own growth while 200 requests are served (allocation between collections) */
const SLACK_BYTES = 48 * 1024 * 1024
/** the GraphQL subscriptions' RSS check: pages the allocator keeps beyond the held bound (see there) */
const RSS_SLACK_BYTES = 16 * 1024 * 1024
const READERS = 200
const BATCH = 20

let t: TestService
let price = 60_000
const venues = ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'] as const
const ticker = (i: number): TickerEvent => ({
  type: 'ticker', exchange: venues[i % 5]!, coin: DEFAULT_COINS[i % DEFAULT_COINS.length]!, marketType: 'perp', ts: Date.now(),
  markPrice: ++price, indexPrice: price - 0.5, lastPrice: price + 0.5, fundingRate: 0.0001, fundingIntervalHours: 8, nextFundingTime: Date.now() + 3_600_000,
})

beforeAll(async () => {
  t = await startTestService({ listen: true })
})
/** every stalled-readers child, stopped (and waited for) at the latest here */
const started = new Set<ChildProcess>()
afterAll(async () => {
  await Promise.all([...started].map(killed))
  await t?.close()
})

// a full collection before each reading, so the heap figure is what is held, not garbage not yet collected
v8.setFlagsFromString('--expose-gc')
const gc = vm.runInNewContext('gc') as () => void
const memory = () => {
  gc()
  const m = process.memoryUsage()
  return { rss: m.rss, held: m.heapUsed + m.arrayBuffers }
}

function stalledReaders(requests: string[]): { child: ChildProcess; connected: Promise<void> } {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, '..', 'helpers', 'stalled-readers.mjs')], {
    env: { ...process.env, STALLED_PORT: new URL(t.url).port, STALLED_REQUESTS: JSON.stringify(requests) },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  started.add(child)
  child.once('exit', () => started.delete(child))
  // its stdin is ended to stop it: a child already gone makes that an EPIPE on the pipe, which needs a listener
  child.stdin!.on('error', () => {})
  const connected = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('connected') && resolve())
    child.on('exit', (code) => reject(new Error(`stalled readers exited with ${code}`)))
    // not started at all: 'error' (never 'exit'), which would otherwise end the test process
    child.on('error', reject)
  })
  return { child, connected }
}

const connections = () => new Promise<number>((resolve, reject) => t.server.getConnections((err, n) => (err ? reject(err) : resolve(n))))

const streamRequest = (key: string) =>
  `GET /v1/stream?channels=${STREAM_CHANNELS.join(',')} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nLast-Event-ID: 0\r\n\r\n`

// minutes on a loaded machine: the service's own work per event, for hundreds of streams, is what these measure
describe('GET /v1/stream with readers that never read', { timeout: 180_000 }, () => {
  it(`${READERS} stalled readers asking the largest replay keep the server within ${READERS} × (buffer cap + connection) + slack, and are dropped`, async () => {
    const hub = t.services.market.stream
    // the hub as the script found it, and full: 50,000 tickers of the whole universe (about 16 MB of frames, the
    // most it keeps per channel), so the events published later replace old ones instead of adding to its memory
    for (let i = 0; i < 50_000; i++) hub.publish(liveDraft(ticker(i)))
    // the alert engine follows the hub too
    const others = hub.subscribers()
    // keys enough for 200 streams within the caps: 10 accounts of 2 keys each
    const keys: string[] = []
    for (let a = 0; a < READERS / PER_ACCOUNT; a++) {
      const { apiKey } = await t.signup()
      keys.push(apiKey)
      for (let k = 1; k < PER_ACCOUNT / PER_KEY; k++) {
        const r = await t.fetch('/v1/auth/keys', { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `k${k}` }) })
        keys.push(((await r.json()) as { data: { api_key: string } }).data.api_key)
      }
    }
    const requests = Array.from({ length: READERS }, (_, i) => streamRequest(keys[Math.floor(i / PER_KEY)]!))
    // settled: what the set-up left behind is collected before the reading everything is measured against
    let base = memory()
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 100))
      const m = memory()
      base = { rss: Math.min(base.rss, m.rss), held: Math.min(base.held, m.held) }
    }
    const children: ChildProcess[] = []
    const check = (opened: number, when: string) => {
      const now = memory()
      const bound = opened * (BUFFER_BYTES + CONNECTION_BYTES) + SLACK_BYTES
      const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`
      const what = `${when}, ${opened} readers: rss +${mb(now.rss - base.rss)}, heap+buffers +${mb(now.held - base.held)}, bound ${mb(bound)}`
      expect(now.rss - base.rss, what).toBeLessThanOrEqual(bound)
      expect(now.held - base.held, what).toBeLessThanOrEqual(bound)
    }
    try {
      // in batches, checking after each, so a server without the bounds fails before it takes the machine's memory
      for (let opened = 0; opened < READERS; opened += BATCH) {
        const { child, connected } = stalledReaders(requests.slice(opened, opened + BATCH))
        children.push(child)
        await connected
        await until(() => hub.subscribers() >= others + opened + BATCH, 30_000, `${opened + BATCH} streams open`)
        check(opened + BATCH, 'replayed')
      }
      // live events keep coming: every stalled buffer fills to its cap, and its reader is dropped
      // (the kernel's socket buffers take a few MB of each first, outside the process: docs/operations.md)
      for (let i = 0; i < 100_000 && hub.subscribers() > others; i++) {
        hub.publish(liveDraft(ticker(i)))
        if (i % 1000 === 999) {
          check(READERS, 'live')
          await new Promise((r) => setImmediate(r))
        }
      }
      await until(() => hub.subscribers() === others, 10_000, 'every stalled reader dropped')
      check(READERS, 'dropped')
      // and their connections are closed by the server within the grace (5 s) though they read nothing
      await until(async () => (await connections()) === 0, 10_000, 'the dropped connections closed')
    } finally {
      for (const c of children) c.stdin!.end()
    }
  })

  it('a reader that stalls is dropped once its buffer is full; reading again, it finds every event up to the drop, then the final slow_reader event', async () => {
    const hub = t.services.market.stream
    const others = hub.subscribers()
    const { apiKey } = await t.signup()
    const socket = net.connect({ host: '127.0.0.1', port: Number(new URL(t.url).port) })
    // a reset of this socket fails the test where it waits on it, and nothing of it outlives the test
    const failed = new Promise<never>((_, reject) => socket.once('error', reject))
    failed.catch(() => {})
    onTestFinished(() => void socket.destroy())
    await Promise.race([new Promise((r) => socket.once('connect', r)), failed])
    socket.pause()
    socket.write(`GET /v1/stream?channels=ticker HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\n\r\n`)
    await until(() => hub.subscribers() === others + 1, 5000, 'the stream open')
    const published: number[] = []
    // until the server gives up on it: the kernel's buffers first, then its own, up to the cap
    for (let i = 0; hub.subscribers() > others; i++) {
      if (i >= 100_000) throw new Error('the stalled reader was never dropped')
      hub.publish(liveDraft(ticker(i)))
      published.push(hub.lastId())
      if (i % 500 === 499) await new Promise((r) => setImmediate(r))
    }
    // now it reads: what reached it is a prefix of what was published, in order, none missing, then the end
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (d: string) => (text += d))
    socket.resume()
    await Promise.race([new Promise((r) => socket.once('end', r)), failed])
    const frames = [...text.matchAll(/^id: (\d+)\nevent: (\w+)\n/gm)].map((m) => Number(m[1]))
    expect(frames.length).toBeGreaterThan(0)
    expect(frames).toEqual(published.slice(0, frames.length))
    const end = [...text.matchAll(/^event: end\ndata: (.*)$/gm)]
    expect(end).toHaveLength(1)
    expect(JSON.parse(end[0]![1]!)).toMatchObject({ reason: 'slow_reader', buffer_bytes: BUFFER_BYTES })
    expect(text.lastIndexOf('event: end')).toBeGreaterThan(text.lastIndexOf('id: '))
    // it resumes from the last id it got: more was published since than a replay holds, so it is told so, then
    // gets the newest events, up to the last one published
    const lastGot = frames.at(-1)!
    const again = sseReader(await fetch(`${t.url}/v1/stream?channels=ticker`, { headers: { authorization: `Bearer ${apiKey}`, 'last-event-id': String(lastGot) } }))
    await until(() => again.frames.at(-1)?.id === String(published.at(-1)), 5000, 'the replay up to the newest event')
    again.cancel()
    const [notice, ...replayed] = again.frames
    expect(notice!.event).toBe('replay_truncated')
    expect(JSON.parse(notice!.data)).toMatchObject({ reason: 'replay_limit', requested_after: lastGot, first_id: Number(replayed[0]!.id) })
    expect(replayed.map((f) => Number(f.id))).toEqual(published.slice(-replayed.length))
    expect(published.length - frames.length).toBeGreaterThan(replayed.length)
    await until(() => hub.subscribers() === others, 5000, 'the resumed stream closed')
  })

  it('GraphQL subscriptions that never read are dropped at the same cap, within the same memory bound, and give their slots back', async () => {
    // three: yoga's work per event is what this costs, not the bound
    const hub = t.services.market.stream
    const others = hub.subscribers()
    const { apiKey } = await t.signup()
    const body = JSON.stringify({ query: 'subscription { stream(channels: [TICKER]) { id channel coin ts data } }' })
    const request = `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`
    const base = memory()
    const stalled = 3
    const { child, connected } = stalledReaders(Array.from({ length: stalled }, () => request))
    try {
      await connected
      await until(() => hub.subscribers() === others + stalled, 10_000, `${stalled} subscriptions open`)
      const bound = stalled * (BUFFER_BYTES + CONNECTION_BYTES) + SLACK_BYTES
      for (let i = 0; hub.subscribers() > others; i++) {
        if (i >= 100_000) throw new Error('the stalled subscriptions were never dropped')
        hub.publish(liveDraft(ticker(i)))
        if (i % 1000 === 999) {
          const now = memory()
          expect(now.held - base.held, `${i + 1} events`).toBeLessThanOrEqual(bound)
          // the process's RSS also keeps the allocator's pages of the service's own work meanwhile (its ticks' store
          // round trips through pg in this process, yoga's per-event execution): RSS_SLACK_BYTES more than the held
          // bound, which is the exact one (seen: +55.7 MB against 51.2 MB in a full run on two loaded cores)
          expect(now.rss - base.rss, `${i + 1} events`).toBeLessThanOrEqual(bound + RSS_SLACK_BYTES)
          await new Promise((r) => setImmediate(r))
        }
      }
      await until(async () => (await connections()) === 0, 10_000, 'the dropped subscriptions closed')
      // every slot is back: the key opens as many streams again
      const reopened = await Promise.all(Array.from({ length: PER_KEY }, () => fetch(`${t.url}/v1/stream?channels=ticker`, { headers: { authorization: `Bearer ${apiKey}` } })))
      expect(reopened.map((r) => r.status)).toEqual(Array(PER_KEY).fill(200))
      for (const r of reopened) await r.body?.cancel()
    } finally {
      child.stdin!.end()
    }
  })
})
