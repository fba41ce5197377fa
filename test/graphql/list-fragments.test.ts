// Long lists written once (src/graphql/list-fragments.ts): the REST answer that splices in a list's JSON kept from
// an earlier answer is the answer GraphQL gives for the same stored operation, byte for byte in its data; a list is
// reused only for the same source array and selection; the splice puts every list back where it was resolved.
import fs from 'node:fs'
import path from 'node:path'
import { parse, type FieldNode, type GraphQLResolveInfo, type OperationDefinitionNode } from 'graphql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ListFragments } from '../../src/graphql/list-fragments.js'
import { camelToSnake } from '../../src/domain/case.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'

type Json = Record<string, unknown>

const field = (name: string): FieldNode => (parse(`{ ${name} { ts } }`).definitions[0] as OperationDefinitionNode).selectionSet.selections[0] as FieldNode
const infoAt = (node: FieldNode, keys: (string | number)[]): GraphQLResolveInfo => {
  let p: GraphQLResolveInfo['path'] | undefined
  for (const key of keys) p = { prev: p, key, typename: undefined }
  return { fieldNodes: [node], path: p } as unknown as GraphQLResolveInfo
}
/** the body as REST sends it uncompressed: the pieces joined */
const joined = (f: ListFragments, body: string) => Buffer.concat(f.pieces(body).map((p) => (typeof p === 'string' ? Buffer.from(p) : p))).toString()
const points = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ ts: from + i, value: i / 3 }))

describe('ListFragments', () => {
  it('serialises a list the first time, then stands an empty list for it and splices the same JSON back', () => {
    const node = field('points')
    const list = points(40)
    const serialise = (v: unknown) => JSON.stringify(v)

    const first = new ListFragments(serialise)
    expect(first.take(list, infoAt(node, ['q', 'series', 0, 'points']))).toBe(list)
    const data1: Json = { q: { series: [{ name: 'a', points: list.map((p) => ({ ...p })) }] } }
    expect(first.seal(data1)).toBe(true)
    const body1 = joined(first, JSON.stringify(data1))

    const second = new ListFragments(serialise)
    expect(second.take(list, infoAt(node, ['q', 'series', 0, 'points']))).toEqual([])
    const data2: Json = { q: { series: [{ name: 'a', points: [] }] } }
    expect(second.seal(data2)).toBe(true)
    const body2 = joined(second, JSON.stringify(data2))

    expect(body2).toBe(body1)
    // the list is the very bytes written the first time (so REST compresses it once: src/rest/gzip-pieces.ts)
    expect(second.pieces(JSON.stringify(data2)).find(Buffer.isBuffer)).toBe(first.pieces(JSON.stringify(data1)).find(Buffer.isBuffer))
    expect(JSON.parse(body2)).toEqual({ q: { series: [{ name: 'a', points: list }] } })
  })

  it('reuses only for the same array and the same selection; short lists are left to execution', () => {
    const node = field('points')
    const list = points(40)
    const f = new ListFragments((v) => JSON.stringify(v))
    f.take(list, infoAt(node, ['q', 'points']))
    f.seal({ q: { points: list } })

    const again = new ListFragments((v) => JSON.stringify(v))
    // an equal array that is not the same one is executed again
    const copy = list.map((p) => ({ ...p }))
    expect(again.take(copy, infoAt(node, ['q', 'points']))).toBe(copy)
    // the same array under another selection (another stored operation's field) is executed again
    expect(again.take(list, infoAt(field('points'), ['q', 'other']))).toBe(list)
    const short = points(3)
    expect(again.take(short, infoAt(node, ['q', 'short']))).toBe(short)
  })

  it('puts several lists back each at its own place, and refuses when a list is not where it was resolved', () => {
    const node = field('points')
    const a = points(30, 0)
    const b = points(30, 1000)
    const warm = new ListFragments((v) => JSON.stringify(v))
    warm.take(a, infoAt(node, ['r', 0, 'points']))
    warm.take(b, infoAt(node, ['r', 1, 'points']))
    warm.seal({ r: [{ points: a }, { points: b }] })

    const f = new ListFragments((v) => JSON.stringify(v))
    f.take(b, infoAt(node, ['r', 0, 'points']))
    f.take(a, infoAt(node, ['r', 1, 'points']))
    const data = { r: [{ points: [] }, { points: [] }] }
    expect(f.seal(data)).toBe(true)
    expect(JSON.parse(joined(f, JSON.stringify(data)))).toEqual({ r: [{ points: b }, { points: a }] })

    const lost = new ListFragments((v) => JSON.stringify(v))
    lost.take(a, infoAt(node, ['r', 0, 'points']))
    expect(lost.seal({ r: null })).toBe(false)
  })
})

// the REST answers against GraphQL's, on a seeded store
let t: TestService
let key: string

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 8, coins: ['BTC'] })
  const acct = await t.signup()
  key = acct.apiKey
  await t.setCredits(acct.accountId, 1_000_000)
})
afterAll(() => t.close())

const snake = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(snake) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [camelToSnake(k), snake(x)])) : v

const OPERATIONS = path.resolve(import.meta.dirname, '../../schema/operations/v1')

const cases: { rest: string; operation: string; field: string; variables: Json }[] = [
  { rest: '/v1/oi/history?coin=BTC&interval=5m&lookback=4h', operation: 'oi-history', field: 'oiHistory', variables: { coin: 'BTC', interval: 'M5', lookback: 'H4' } },
  { rest: '/v1/flow/cvd?coin=BTC&interval=5m&lookback=4h', operation: 'cvd', field: 'cvd', variables: { coin: 'BTC', interval: 'M5', lookback: 'H4' } },
  { rest: '/v1/markets/ohlc?coin=BTC&interval=1m&lookback=4h&limit=100', operation: 'ohlc', field: 'ohlc', variables: { coin: 'BTC', interval: 'M1', lookback: 'H4', limit: 100 } },
]

describe('REST answers with spliced lists', () => {
  it.each(cases)('$rest: the second answer (lists spliced) equals the first and GraphQL\'s', async (c) => {
    const get = async () => {
      const res = await t.get(c.rest, key)
      const text = await res.text()
      expect(res.status, text.slice(0, 300)).toBe(200)
      return JSON.parse(text) as { data: Json; meta: Json }
    }
    const first = await get()
    const second = await get()
    expect(second.data).toEqual(first.data)
    // long enough for its lists to be taken as fragments
    const longest = (v: unknown): number => (Array.isArray(v) ? Math.max(v.length, ...v.map(longest)) : v && typeof v === 'object' ? Math.max(0, ...Object.values(v).map(longest)) : 0)
    expect(longest(first.data)).toBeGreaterThanOrEqual(24)

    const document = fs.readFileSync(path.join(OPERATIONS, `${c.operation}.graphql`), 'utf8')
    const variableNames = [...document.matchAll(/\$(\w+)\s*:/g)].map((m) => m[1]!)
    const variables = Object.fromEntries(Object.entries(c.variables).filter(([k]) => variableNames.includes(k)))
    const gql = await t.graphql(document, variables, key)
    expect(gql.errors).toBeUndefined()
    const { next, ...data } = gql.data[c.field] as Json
    expect(second.meta.next ?? null).toEqual(next ?? null)
    expect(second.data).toEqual(snake(data))
  })
})
