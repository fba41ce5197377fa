// The recording format, version 1 (docs/recordings.md "Format").
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { formatLine, parseLine, RecordingFormatError } from '../../../src/sources/replay/format.js'
import { loadRecording } from '../../../src/sources/replay/recording.js'

const http = '{"v":1,"venue":"bybit","at":1786310817197,"kind":"http","method":"GET","url":"https://api.bybit.com/v5/market/tickers?category=linear","status":200,"body":"{\\"retCode\\":0}"}'
const ws = '{"v":1,"venue":"bybit","at":1786310818129,"kind":"ws","url":"wss://stream.bybit.com/v5/public/linear","frame":"{\\"topic\\":\\"publicTrade.BTCUSDT\\"}"}'
const history = '{"v":1,"venue":"binance","at":1786310817300,"kind":"history","days":1,"now":1786310817250,"from":1786224360000,"to":1786310760000}'

describe('recording lines', () => {
  it('parse and format round-trip, keys in the documented order', () => {
    for (const text of [http, ws, history]) expect(formatLine(parseLine(text, 1)!)).toBe(text)
    const post = { v: 1, venue: 'hyperliquid', at: 5, kind: 'http', method: 'POST', url: 'https://api.hyperliquid.xyz/info', requestBody: '{"type":"meta"}', status: 200, body: '{}', source: 'hyperliquid/meta.json', testnet: true } as const
    expect(Object.keys(JSON.parse(formatLine(post)))).toEqual(['v', 'venue', 'at', 'kind', 'method', 'url', 'requestBody', 'status', 'body', 'source', 'testnet'])
  })

  it('errors name the line; another version is refused; blank lines and unknown kinds are skipped', () => {
    expect(parseLine('', 3)).toBeNull()
    expect(parseLine('{"v":1,"kind":"note","at":1}', 3)).toBeNull()
    expect(() => parseLine('{"v":2,"kind":"http"}', 4)).toThrow(/line 4: unsupported recording version 2/)
    expect(() => parseLine('nope', 5)).toThrow(/line 5: not JSON/)
    expect(() => parseLine(http.replace('"bybit"', '"kraken"'), 6)).toThrow(/line 6: venue/)
    expect(() => parseLine(http.replace('"status":200,', ''), 7)).toThrow(RecordingFormatError)
    expect(() => parseLine(history.replace('"days":1,', ''), 8)).toThrow(/line 8: days/)
  })

  it('a recording must be sorted by at (the replay streams its frames in file order)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'format-'))
    const sorted = path.join(dir, 'a.jsonl')
    writeFileSync(sorted, `${http}\n${history}\n\n${ws}\n`)
    const rec = await loadRecording(sorted)
    expect([rec.http.length, rec.frameCount, rec.times]).toEqual([1, 1, [1786310817197, 1786310818129]])
    // where the history service planned: kept apart, not on the time line
    expect(rec.history).toEqual([parseLine(history, 1)])
    const unsorted = path.join(dir, 'b.jsonl')
    writeFileSync(unsorted, `${ws}\n${http}\n`)
    await expect(loadRecording(unsorted)).rejects.toThrow(/line 2: at 1786310817197 is earlier than the line before/)
    const empty = path.join(dir, 'c.jsonl')
    writeFileSync(empty, '{"v":1,"kind":"meta","at":1,"recorder":"x","exchanges":[]}\n')
    await expect(loadRecording(empty)).rejects.toThrow(/no http or ws lines/)
  })
})
