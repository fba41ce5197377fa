// An API node's follower (issue 31, item 2): the writers number their data messages, and a node that misses one
// (a publish NATS refused while its stream was gone, a message lost while cut off) reloads its hot series from the
// store instead of serving a hole. A skipped number is seen on the next message; a last message that never came is
// seen at the writer's next status but one (a status says how many it sent). The bus here is a stand-in that hands
// the follower its messages; the store is a real embedded one.
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { followBus, type Follower } from '../../../src/ingest/bus/follower.js'
import type { BusHandlers, NatsBus } from '../../../src/ingest/bus/nats-bus.js'
import type { DataMessage, StatusMessage } from '../../../src/ingest/bus/messages.js'
import { MarketState } from '../../../src/read/state.js'
import type { Database } from '../../../src/store/database.js'
import { openTestStore } from '../../helpers/store.js'

const T = 1_772_452_800_000
const data = (node: string, seq: number): DataMessage => ({ node, seq, kinds: ['candles'], minuteBars: [], hourBars: [], samples: [] })
const status = (node: string, dataSeq: number, ts = T): StatusMessage => ({ node, ts, enabled: ['binance'], writing: ['binance'], lastEvent: { binance: ts }, backfill: null, dataSeq })

describe('the follower reloads from the store when a writer’s data message never arrives', () => {
  let db: Database
  let market: MarketState
  let follower: Follower
  let handlers: BusHandlers
  let loads: ReturnType<typeof vi.spyOn>
  beforeAll(async () => {
    db = await openTestStore()
    market = new MarketState(db, () => T)
    await market.load()
    loads = vi.spyOn(market.series, 'load')
    const bus = { connected: true, follow: async (h: BusHandlers) => void (handlers = h) } as unknown as NatsBus
    follower = followBus(bus, market, db, pino({ level: 'silent' }))
    await vi.waitFor(() => expect(handlers).toBeDefined())
  })
  afterAll(async () => {
    follower?.stop()
    await db?.close()
  })

  /** let the follower's reloads (chained promises on the store) run to their end */
  const settle = () => follower.settled()

  it('consecutive numbers: no reload; a skipped number: one reload; a last message missing a status later: one reload', async () => {
    handlers.resync() // the consumers are in place: the first load
    await settle()
    expect(loads).toHaveBeenCalledTimes(1)

    for (const seq of [1, 2, 3]) handlers.data(data('ingest-a', seq))
    handlers.status(status('ingest-a', 3))
    handlers.status(status('ingest-a', 3))
    await settle()
    expect(loads, 'every message arrived').toHaveBeenCalledTimes(1)
    expect(follower.gaps()).toBe(0)

    // 4 and 5 were refused by NATS (its stream was gone): 6 arrives
    handlers.data(data('ingest-a', 6))
    await settle()
    expect(loads).toHaveBeenCalledTimes(2)
    expect(follower.gaps()).toBe(1)

    // a status may come before the message it counts: one interval of grace, then the reload
    handlers.status(status('ingest-a', 7))
    await settle()
    expect(loads, 'message 7 may still be on its way').toHaveBeenCalledTimes(2)
    handlers.status(status('ingest-a', 7))
    await settle()
    expect(loads).toHaveBeenCalledTimes(3)
    expect(follower.gaps()).toBe(2)

    // after that reload, what the status counted is covered: the writer goes on from 8 with nothing to reload
    handlers.data(data('ingest-a', 8))
    handlers.status(status('ingest-a', 8))
    handlers.status(status('ingest-a', 8))
    await settle()
    expect(loads).toHaveBeenCalledTimes(3)
  })

  it('a standby that writes nothing, and each writer numbered on its own, cause no reload', async () => {
    const before = loads.mock.calls.length
    for (let i = 0; i < 3; i++) handlers.status(status('ingest-standby', 0))
    handlers.data(data('ingest-b', 1))
    handlers.data(data('ingest-a', 9))
    handlers.data(data('ingest-b', 2))
    handlers.status(status('ingest-b', 2))
    handlers.status(status('ingest-b', 2))
    await settle()
    expect(loads.mock.calls.length).toBe(before)
  })
})
