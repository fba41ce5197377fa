// Answers over 1 KB are compressed when the caller accepts it (docs/contract.md#compression); small ones are not.
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'

let t: TestService
let key: string

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 2, coins: ['BTC'] })
  key = (await t.signup()).apiKey
})
afterAll(() => t.close())

const path = '/v1/markets/ohlc?coin=BTC&interval=1m&lookback=1h'

describe('response compression', () => {
  it('gzip and br when accepted: the decompressed body is the plain body, and much smaller on the wire', async () => {
    const plain = await t.get(path, key)
    expect(plain.headers.get('content-encoding')).toBeNull()
    const text = await plain.text()
    expect(text.length).toBeGreaterThan(1024)
    for (const [encoding, decode] of [['gzip', gunzipSync], ['br', brotliDecompressSync]] as const) {
      const res = await t.get(path, key, { 'accept-encoding': encoding })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-encoding')).toBe(encoding)
      expect(res.headers.get('vary')).toMatch(/accept-encoding/i)
      const wire = Buffer.from(await res.arrayBuffer())
      const body = JSON.parse(decode(wire).toString('utf8'))
      const ref = JSON.parse(text)
      // the same answer apart from the per-request meta
      expect(body.data).toEqual(ref.data)
      expect(wire.length * 2).toBeLessThan(text.length)
    }
  })

  it('a long list kept from an earlier answer is gzipped from its bytes compressed once, when the caller takes gzip at least as gladly as br', async () => {
    // the 2 seeded hours of minutes: the candles are a list kept apart (src/graphql/list-fragments.ts) of more than 16 KB
    const long = '/v1/markets/ohlc?coin=BTC&interval=1m&lookback=4h'
    const ref = JSON.parse(await (await t.get(long, key)).text())
    expect(JSON.stringify(ref.data.candles).length).toBeGreaterThan(16 * 1024)
    const cases: [string, string, (b: Buffer) => Buffer][] = [
      ['gzip', 'gzip', gunzipSync],
      ['br, gzip', 'gzip', gunzipSync], // no preference between them: gzip, compressed once
      ['gzip, deflate, br, zstd', 'gzip', gunzipSync],
      ['br;q=1, gzip;q=0.5', 'br', brotliDecompressSync], // the caller's preference holds
      ['br', 'br', brotliDecompressSync],
    ]
    for (const [accept, encoding, decode] of cases)
      for (let i = 0; i < 2; i++) {
        const res = await t.get(long, key, { 'accept-encoding': accept })
        expect(res.headers.get('content-encoding'), accept).toBe(encoding)
        expect(res.headers.get('vary')).toMatch(/accept-encoding/i)
        const body = JSON.parse(decode(Buffer.from(await res.arrayBuffer())).toString('utf8'))
        expect(body.data, accept).toEqual(ref.data)
        expect(body.meta.request_id).not.toBe(ref.meta.request_id)
      }
    const plain = await t.get(long, key, { 'accept-encoding': 'identity' })
    expect(plain.headers.get('content-encoding')).toBeNull()
    expect(JSON.parse(await plain.text()).data).toEqual(ref.data)
  })

  it('small answers (under 1 KB) and problems are sent as they are', async () => {
    const res = await t.get('/v1/markets/ticker?coin=NOPE', key, { 'accept-encoding': 'gzip' })
    expect(res.status).toBe(400)
    expect(res.headers.get('content-encoding')).toBeNull()
    expect(((await res.json()) as { parameter: string }).parameter).toBe('coin')
  })
})
