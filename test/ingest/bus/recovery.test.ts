// The bus after NATS restarts (issue 31, item 2): the server's memory streams are gone. Every node makes them again
// when it reconnects, and a follower makes its consumers again — a consumer of the lost stream would wait for the
// old stream's next sequence number, which the new one reaches only after as many messages. On a NATS server of the
// test's own (test/helpers/nats-server.ts), stopped and started again on the same port; the shared one is never touched.
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import { pino } from 'pino'
import { afterAll, describe, expect, it } from 'vitest'
import type { DataMessage, LiveEvent, StatusMessage } from '../../../src/ingest/bus/messages.js'
import { NatsBus } from '../../../src/ingest/bus/nats-bus.js'
import { eventKey, StreamHub, type StreamDraft } from '../../../src/read/stream/hub.js'
import { ownNatsMissing, startOwnNats, type OwnNats } from '../../helpers/nats-server.js'
import { until } from '../../helpers/scale-out.js'
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js'

const prefix = `rec${Date.now().toString(36)}`
const log = pino({ level: 'silent' })
let nats: OwnNats | undefined
let proxy: TcpProxy | undefined
const buses: NatsBus[] = []

afterAll(async () => {
  for (const b of buses) await b.close()
  await proxy?.close()
  await nats?.close()
})

/** null, or skips the test (fails it where NATS is required) when there is no nats-server to run */
const noServer = (ctx: { skip(): void }) => {
  const missing = ownNatsMissing()
  if (!missing) return false
  if (process.env.REQUIRE_NATS === '1') throw new Error(missing)
  ctx.skip()
  return true
}

const T0 = 1_772_452_800_000
const ticker = (i: number): LiveEvent => ({ type: 'ticker', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: T0 + i, markPrice: 60_000 + i, indexPrice: null, lastPrice: null, fundingRate: null, fundingIntervalHours: null, nextFundingTime: null })
const data = (seq: number): DataMessage => ({ node: 'ingest', seq, kinds: ['candles'], minuteBars: [], hourBars: [], samples: [] })
const draft = (i: number): StreamDraft => ({ channel: 'ticker', coin: 'BTC', ts: T0 + i, data: { exchange: 'binance', market_type: 'perp', mark_price: 60_000 + i } })

describe('NATS restarted without its memory streams', () => {
  it('the streams and consumers are made again: live, data and push messages flow with no node restarted, push ids keep increasing', async (ctx) => {
    if (noServer(ctx)) return
    nats ??= await startOwnNats()
    const ingest = new NatsBus(nats.url, prefix, log, 'ingest')
    const api = new NatsBus(nats.url, prefix, log, 'api')
    buses.push(ingest, api)
    await Promise.all([ingest.whenReady(), api.whenReady()])
    const got = { live: [] as LiveEvent[], data: [] as DataMessage[], status: [] as StatusMessage[], resyncs: 0 }
    await api.follow({ live: (e) => got.live.push(e), status: (s) => got.status.push(s), data: (m) => got.data.push(m), resync: () => got.resyncs++ })
    const hub = new StreamHub()
    await api.followPush((e) => hub.append(e))
    const producer = new StreamHub()
    producer.forward = (e) => ingest.publishPush(e, eventKey(e))

    const send = async (from: number, n: number) => {
      for (let i = from; i < from + n; i++) {
        ingest.publishLive(ticker(i))
        expect(await ingest.publishData(data(i + 1))).toBe(true)
        producer.publish(draft(i))
      }
    }
    await send(0, 12)
    // the live stream keeps the last message per subject (a last-value cache): a ticker overwritten before the consumer
    // pulled it is skipped by design, so what must arrive is the newest one; data and push messages arrive every one
    const liveUpTo = (ts: number) => got.live.some((e) => e.ts === ts)
    /** true once every kind has arrived; otherwise throws what has (a timeout then says which kind is missing) */
    const arrived = (liveTs: number, data: number, pushSince: number, push: number) => {
      const have = { newest_live: liveUpTo(liveTs), data: got.data.length, push: hub.since(['ticker'], pushSince).length }
      if (have.newest_live && have.data >= data && have.push >= push) return true
      throw new Error(`arrived so far: ${JSON.stringify(have)}`)
    }
    await until('the first messages on the API side', async () => arrived(T0 + 11, 12, 0, 12), 20_000)
    const before = hub.since(['ticker'], 0).map((e) => e.id)
    expect(got.resyncs).toBe(1)

    // NATS stops; a data message meanwhile is refused (counted), nothing thrown
    await nats.stop()
    await until('both nodes to notice', async () => (!ingest.connected && !api.connected ? true : undefined), 10_000)
    expect(await ingest.publishData(data(13))).toBe(false)
    await nats.start()

    // every stream exists again, made by the nodes (nothing else makes them here)
    const nc = await connect({ servers: nats.url })
    try {
      const jsm = await jetstreamManager(nc)
      const up = prefix.toUpperCase()
      await until('the streams to be made again', async () => {
        for (const s of ['LIVE', 'DATA', 'PUSH']) await jsm.streams.info(`${up}_${s}`)
        return true
      }, 15_000, 100)
    } finally {
      await nc.close()
    }
    // the follower made its consumers again and asked for a reload from the store
    await until('the consumers to be made again', async () => (got.resyncs >= 2 ? true : undefined), 15_000)
    expect(api.stats.streamsRecreated).toBeGreaterThanOrEqual(1)

    // the writer is connected again too (the streams may have been made by the API node alone; until its own
    // reconnect, the writer's publishes are refused and counted, as while NATS was down)
    await until('the writer to be connected again', async () => (ingest.connected ? true : undefined), 15_000)

    const seen = { live: got.live.length, data: got.data.length }
    await send(100, 3)
    await until('the messages sent after the restart on the API side', async () => arrived(T0 + 102, seen.data + 3, Math.max(...before), 3), 20_000)
    // the live tickers after the restart: only those sent after it, in order, the newest among them
    const liveAfter = got.live.slice(seen.live).map((e) => e.ts - T0)
    expect(liveAfter.every((ts, i) => [100, 101, 102].includes(ts) && (i === 0 || ts > liveAfter[i - 1]!))).toBe(true)
    expect(liveAfter.at(-1)).toBe(102)
    expect(got.data.slice(seen.data).map((m) => m.seq)).toEqual([101, 102, 103])
    // the new push stream numbers above the old one: a client resuming with an old id gets the new events
    const after = hub.since(['ticker'], Math.max(...before))
    expect(after.map((e) => e.ts)).toEqual([100, 101, 102].map((i) => T0 + i))
    expect(Math.min(...after.map((e) => e.id))).toBeGreaterThan(Math.max(...before))
    // one reload for the outage, not one per trigger (the reconnect, the lost stream, the refused publishes)
    expect(got.resyncs).toBe(2)
  }, 90_000)

  it('a follower whose link hung and dropped gets live and data messages right after reconnecting (its consumers made again), not 30 s later or never', async (ctx) => {
    if (noServer(ctx)) return
    nats ??= await startOwnNats()
    proxy = await startTcpProxy(nats.port)
    const p = `${prefix}cut`
    const ingest = new NatsBus(nats.url, p, log, 'ingest')
    const api = new NatsBus(`nats://127.0.0.1:${proxy.port}`, p, log, 'api')
    buses.push(ingest, api)
    await Promise.all([ingest.whenReady(), api.whenReady()])
    const last = { live: 0, data: 0, resyncs: 0 }
    await api.follow({ live: () => (last.live = Date.now()), status: () => {}, data: () => (last.data = Date.now()), resync: () => last.resyncs++ })
    let i = 0
    // the writer's pace: tickers four times a second, a store write every 2 s
    const timer = setInterval(() => {
      ingest.publishLive(ticker(++i))
      if (i % 8 === 0) void ingest.publishData(data(i / 8))
    }, 250)
    try {
      await until('messages before the cut', async () => (last.live && last.data ? true : undefined), 10_000)
      proxy.freeze()
      await new Promise((r) => setTimeout(r, 6000))
      proxy.cut()
      proxy.restore()
      const back = Date.now()
      await until('the follower to reconnect and reload', async () => (last.resyncs >= 2 ? true : undefined), 15_000, 20)
      // consumers left to resume on their own stalled here for 30 s (live) or for good (data)
      await until('live and data messages sent after the reconnect', async () => (last.live > back && last.data > back ? true : undefined), 10_000, 20)
      // a reconnect (~1 s) and the writer's next store write (every 2 s): ~3 s on a quiet machine; the bound is what
      // tells it from the 30 s stall, with room for a loaded CI machine
      expect(Date.now() - back).toBeLessThan(20_000)
    } finally {
      clearInterval(timer)
    }
  }, 60_000)
})
