// The stored REST operations are generated from the output types (src/rest/stored-operations.ts): the committed
// files must be what `npm run operations:print` writes, as CI checks codegen's output.
import fs from 'node:fs'
import { buildSchema } from 'graphql'
import { describe, expect, it } from 'vitest'
import type { Endpoint } from '../../src/endpoints/define.js'
import { definitionOrderSchema, ENDPOINTS } from '../../src/endpoints/index.js'
import { storedOperationText } from '../../src/rest/stored-operations.js'
import { operationPath } from '../../src/rest/shim.js'

describe('stored REST operations', () => {
  it('are committed as generated (npm run operations:print)', () => {
    const schema = definitionOrderSchema()
    const stale = ENDPOINTS.filter((r) => fs.readFileSync(operationPath(r), 'utf8') !== storedOperationText(r, schema, ENDPOINTS)).map((r) => r.operation)
    expect(stale, 'run npm run operations:print, then npm run codegen').toEqual([])
  })

  const schema = buildSchema(`
    enum Interval { m1 h1 }
    enum HourlyInterval { h1 h4 }
    type Point { ts: Float, delta: Float, exchanges: [String] }
    type Leg { exchange: String, points: [Point] }
    type Series { next: String, coin: String, legs: [Leg], aggregate: [Point] }
    type Query {
      flow(coin: String!, interval: Interval, minUsd: Float): Series
      other(coin: String, interval: Interval, minUsd: Float): Series
      heat(coin: String!, interval: HourlyInterval, minUsd: Int): Series
    }
  `)
  const route = (field: string, operation: string, rest?: Endpoint['rest']) => ({ field, operation, path: `/v1/${operation}`, cost: 3, rest }) as unknown as Endpoint
  const routes = [route('flow', 'flow'), route('other', 'other'), route('heat', 'heat-map')]

  it('selects every field in definition order, the cursor last, less what the endpoint leaves out', () => {
    const text = storedOperationText(route('flow', 'flow', { omit: ['legs.points.delta', 'aggregate.exchanges'], why: 'a reason' }), schema, routes)
    expect(text).toBe(
      [
        '# GET /v1/flow (3 credits)',
        '# not in the REST body: legs.points.delta, aggregate.exchanges (a reason)',
        'query Flow($coin: String!, $interval: Interval, $minUsd: Float) {',
        '  flow(coin: $coin, interval: $interval, minUsd: $minUsd) {',
        '    coin',
        '    legs {',
        '      exchange',
        '      points {',
        '        ts',
        '        exchanges',
        '      }',
        '    }',
        '    aggregate {',
        '      ts',
        '      delta',
        '    }',
        '    next',
        '  }',
        '}',
        '',
      ].join('\n'),
    )
  })

  it('names an enum argument of an unusual type after its type (GraphiQL shares variables); a scalar keeps its name', () => {
    const text = storedOperationText(routes[2]!, schema, routes)
    expect(text.split('\n').slice(0, 4)).toEqual([
      '# GET /v1/heat-map (3 credits)',
      '# $hourlyInterval, not $interval: GraphiQL shares one set of variables across operations, and interval is an Interval there',
      'query HeatMap($coin: String!, $hourlyInterval: HourlyInterval, $minUsd: Int) {',
      '  heat(coin: $coin, interval: $hourlyInterval, minUsd: $minUsd) {',
    ])
  })

  it('refuses to leave out a field the type does not have', () => {
    expect(() => storedOperationText(route('flow', 'flow', { omit: ['legs.price'], why: 'x' }), schema, routes)).toThrow(/legs\.price/)
  })
})
