import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MINUTE_MS, floorTo } from '../../../src/domain/time.js'
import { splitCsvLine, toMillis } from '../../../src/sources/import/fields.js'

describe('timestamps', () => {
  it('ms stay ms, µs are floored to ms', () => {
    expect(toMillis('1704067200012')).toBe(1704067200012)
    expect(toMillis('1704067200012345')).toBe(1704067200012)
    expect(toMillis('1704067259999999')).toBe(1704067259999)
    expect(toMillis('')).toBeNaN()
    expect(toMillis('17040672000x')).toBeNaN()
    expect(toMillis('1704067200012.5')).toBeNaN()
    expect(toMillis('12345')).toBeNaN() // 1970
    expect(toMillis('99999999999999')).toBeNaN() // year 5138 as ms
  })

  it('a µs timestamp never leaves its ms minute (property)', () => {
    const from = Date.UTC(2017, 0, 1)
    const to = Date.UTC(2030, 0, 1)
    fc.assert(
      fc.property(fc.integer({ min: from, max: to }), fc.integer({ min: 0, max: 999 }), (ms, us) => {
        const v = toMillis(String(ms * 1000 + us))
        return v === ms && floorTo(v, MINUTE_MS) === floorTo(ms, MINUTE_MS) && toMillis(String(ms)) === ms
      }),
    )
  })
})

describe('splitCsvLine', () => {
  it('splits plain rows at commas and honours double quotes', () => {
    expect(splitCsvLine('a,b,,c')).toEqual(['a', 'b', '', 'c'])
    expect(splitCsvLine('"x,y",2,"say ""hi"""')).toEqual(['x,y', '2', 'say "hi"'])
  })
})
