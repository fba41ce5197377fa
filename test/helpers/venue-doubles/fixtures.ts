// The real venue payloads (/work/shared/fixtures/exchanges, SOURCES.md there) the doubles take their market lists
// and payload shapes from, so the symbols, fields and types a connector parses are the venues' own.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const FIXTURES_DIR = process.env['EXCHANGE_FIXTURES_DIR'] ?? fileURLToPath(new URL('../../../../shared/fixtures/exchanges/', import.meta.url))

/** a fixture file parsed (a fresh copy each call: callers may edit it) */
export function venueFixture<T = unknown>(path: string): T {
  return JSON.parse(readFileSync(FIXTURES_DIR + path, 'utf8')) as T
}

/** a deep copy of a fixture object with one coin's names swapped for another's (to list coins the fixtures lack) */
export function renameCoin<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll(from, to)) as T
}
