// Push events over NATS JetStream: the ids are the <P>_PUSH stream's sequence numbers, so two API nodes see the
// same event under the same id (a client may resume on either), a second producer's copy of the same event (a hot
// standby, or two API nodes computing the same signal slot) is stored once, and a node that starts late gets the
// retained events.
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { pino } from 'pino'
import { afterAll, describe, expect, it } from 'vitest'
import { NatsBus } from '../../../src/ingest/bus/nats-bus.js'
import { eventKey, StreamHub, type StreamDraft } from '../../../src/read/stream/hub.js'
import { NATS_TEST_URL, scaleOutEngines } from '../../helpers/scale-out.js'
import { until } from '../../push/sse-client.js'

const prefix = `pushtest${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
const log = pino({ level: 'silent' })
const buses: NatsBus[] = []
const bus = (node: string) => {
  const b = new NatsBus(NATS_TEST_URL, prefix, log, node)
  buses.push(b)
  return b
}
const apiNode = async (node: string) => {
  const hub = new StreamHub()
  await bus(node).followPush((e) => hub.append(e))
  return hub
}

afterAll(async () => {
  for (const b of buses) await b.close()
  const nc = await connect({ servers: NATS_TEST_URL }).catch(() => null)
  if (!nc) return
  const jsm = await jetstreamManager(nc)
  for (const s of ['LIVE', 'DATA', 'PUSH']) await jsm.streams.delete(`${prefix.toUpperCase()}_${s}`).catch(() => {})
  await nc.close()
})

describe('push channels on NATS', () => {
  it('the same ids on every API node; duplicates stored once; a late node gets what is retained', async (ctx) => {
    if (await scaleOutEngines()) return ctx.skip()
    const ingest = bus('ingest')
    const standby = bus('standby')
    await Promise.all([ingest.whenReady(), standby.whenReady()])
    const a = await apiNode('api-a')
    const b = await apiNode('api-b')
    const producer = new StreamHub()
    producer.forward = (e) => ingest.publishPush(e, eventKey(e))
    const twin = new StreamHub()
    twin.forward = (e) => standby.publishPush(e, eventKey(e))
    const drafts: StreamDraft[] = Array.from({ length: 20 }, (_, i) => ({
      channel: i % 4 === 3 ? 'liquidations' : 'ticker', coin: 'BTC', ts: 1_772_452_800_000 + i,
      data: i % 4 === 3 ? { exchange: 'okx', id: `liq${i}`, usd: 1000 * i } : { exchange: 'binance', market_type: 'perp', mark_price: 60_000 + i },
    }))
    for (const d of drafts) {
      producer.publish(d)
      twin.publish(d) // the same event from a second node
    }
    await until(() => a.since(['ticker', 'liquidations'], 0).length >= 20 && b.since(['ticker', 'liquidations'], 0).length >= 20, 10_000, 'both API nodes')
    const onA = a.since(['ticker', 'liquidations'], 0)
    const onB = b.since(['ticker', 'liquidations'], 0)
    expect(onA).toHaveLength(20)
    expect(onA.map((e) => [e.id, e.data])).toEqual(onB.map((e) => [e.id, e.data]))
    expect(onA.map((e) => e.data)).toEqual(drafts.map((d) => d.data))
    // resuming on the other node after an id seen on the first: exactly the rest
    const cut = onA[6]!.id
    expect(b.since(['ticker', 'liquidations'], cut).map((e) => e.data)).toEqual(drafts.slice(7).map((d) => d.data))
    expect(b.since(['ticker'], cut).every((e) => e.channel === 'ticker')).toBe(true)
    const late = await apiNode('api-late')
    await until(() => late.since(['ticker', 'liquidations'], 0).length >= 20, 10_000, 'the late node')
    expect(late.since(['ticker', 'liquidations'], 0).map((e) => e.id)).toEqual(onA.map((e) => e.id))
  })
})
