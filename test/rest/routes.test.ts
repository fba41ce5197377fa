// The registry against the contract's own tables (docs/contract.md "Parameters per endpoint" and "Credits"): every
// endpoint is documented there with its cost and parameters, and nothing is documented that is not served.
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { paramInfo } from '../../src/domain/params.js'
import { ENDPOINTS as ROUTES } from '../../src/endpoints/index.js'

const CONTRACT = fs.readFileSync(fileURLToPath(new URL('../../docs/contract.md', import.meta.url)), 'utf8')

/** the rows `| \`/v1/…\` | … |` of the table under a heading */
function table(heading: string): Map<string, string> {
  const from = CONTRACT.indexOf(`\n${heading}\n`)
  expect(from, heading).toBeGreaterThan(-1)
  const rows = new Map<string, string>()
  for (const line of CONTRACT.slice(from + heading.length + 2).split('\n')) {
    if (line.startsWith('#')) break
    const m = /^\| `(\/v1\/[^`]+)` \| (.+) \|$/.exec(line)
    if (m) rows.set(m[1]!, m[2]!)
  }
  return rows
}

describe('route table', () => {
  it('each endpoint costs what docs/contract.md says', () => {
    const doc = [...table('## Credits')].map(([p, c]) => [p, Number(c)])
    expect(Object.fromEntries(ROUTES.map((r) => [r.path, r.cost]))).toEqual(Object.fromEntries(doc))
    // the interface's fixed prices
    expect(Object.fromEntries(doc)).toMatchObject({ '/v1/markets/ohlc': 2, '/v1/signals/snapshot': 10, '/v1/markets/ticker': 1 })
  })

  it('each endpoint takes the parameters docs/contract.md lists, required where it says so', () => {
    const doc = [...table('### Parameters per endpoint')].map(([p, text]) => [p, [...text.matchAll(/`([a-z_]+)`( \(required)?/g)].map((m) => `${m[1]}${m[2] ? '!' : ''}`)])
    const params = Object.fromEntries(ROUTES.map((r) => [r.path, Object.entries(r.params.shape).map(([name, schema]) => `${name}${paramInfo(schema as never).required ? '!' : ''}`)]))
    expect(params).toEqual(Object.fromEntries(doc))
    expect(params['/v1/markets/ohlc']).toEqual(['coin!', 'exchange', 'interval', 'lookback', 'market_type', 'end', 'limit', 'cursor'])
  })
})
