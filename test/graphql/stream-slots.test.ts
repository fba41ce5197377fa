// The stream caps' own rules (src/graphql/stream-slots.ts): counted in process first, then in the shared count;
// a shared count that does not answer leaves each node holding the caps over its own streams (fail open to the
// local count); a slot given back twice counts once.
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/errors.js'
import { StreamSlots, type SharedStreamSlots, type StreamSlot } from '../../src/graphql/stream-slots.js'

const caps = { STREAM_MAX_PER_KEY: 2, STREAM_MAX_PER_ACCOUNT: 3 }
const logger = pino({ level: 'silent' })

/** a shared count in memory, as Redis keeps it: members per key and per account */
function memoryShared(): SharedStreamSlots & { members: Map<string, Set<string>> } {
  const members = new Map<string, Set<string>>()
  const set = (id: string) => members.get(id) ?? members.set(id, new Set()).get(id)!
  return {
    members,
    async take(s: StreamSlot, perKey: number, perAccount: number) {
      if (set(`k:${s.keyId}`).size >= perKey) return { scope: 'key', open: set(`k:${s.keyId}`).size }
      if (set(`a:${s.accountId}`).size >= perAccount) return { scope: 'account', open: set(`a:${s.accountId}`).size }
      set(`k:${s.keyId}`).add(s.member)
      set(`a:${s.accountId}`).add(s.member)
      return null
    },
    async renew() {},
    async give(s: StreamSlot) {
      set(`k:${s.keyId}`).delete(s.member)
      set(`a:${s.accountId}`).delete(s.member)
    },
  }
}

const refusal = async (p: Promise<unknown>) => {
  const e = await p.then(() => null, (err: unknown) => err)
  expect(e).toBeInstanceOf(ApiError)
  return { code: (e as ApiError).code, ...(e as ApiError).extra }
}

describe('stream slots', () => {
  it('in process: per key, then per account; a slot given back (twice) frees one', async () => {
    const slots = new StreamSlots(caps, () => null, logger)
    const a = { accountId: 'A', keyId: 'k1' }
    const give = [await slots.take(a), await slots.take(a)]
    expect(await refusal(slots.take(a))).toMatchObject({ code: 'rate_limited', scope: 'key', limit: 2, open: 2, retry_after: 30 })
    await slots.take({ accountId: 'A', keyId: 'k2' })
    expect(await refusal(slots.take({ accountId: 'A', keyId: 'k3' }))).toMatchObject({ scope: 'account', limit: 3, open: 3 })
    give[0]!()
    give[0]!()
    await slots.take(a)
    expect(await refusal(slots.take(a))).toMatchObject({ scope: 'key', open: 2 })
  })

  it("the shared count refuses what this node's own count allows (another node's streams)", async () => {
    const shared = memoryShared()
    const here = new StreamSlots(caps, () => shared, logger)
    const there = new StreamSlots(caps, () => shared, logger)
    const a = { accountId: 'A', keyId: 'k1' }
    const give = await here.take(a)
    await there.take(a)
    expect(await refusal(there.take(a))).toMatchObject({ scope: 'key', open: 2 })
    expect(await refusal(here.take(a))).toMatchObject({ scope: 'key', open: 2 })
    give()
    await Promise.resolve()
    expect(shared.members.get('k:k1')!.size).toBe(1)
    await there.take(a)
  })

  it('a shared count that fails: each node holds the caps over its own streams', async () => {
    const down: SharedStreamSlots = { take: () => Promise.reject(new Error('redis: take took over 500 ms')), renew: () => Promise.resolve(), give: () => Promise.reject(new Error('down')) }
    const slots = new StreamSlots(caps, () => down, logger)
    const a = { accountId: 'A', keyId: 'k1' }
    const give = [await slots.take(a), await slots.take(a)]
    expect(await refusal(slots.take(a))).toMatchObject({ scope: 'key', open: 2 })
    give[1]!()
    await slots.take(a)
  })
})
