// recordHeaders replays helmet's headers: they must be exactly what helmet itself sets on a real response.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import helmet from 'helmet'
import { describe, expect, it } from 'vitest'
import { recordHeaders } from '../../src/http/security-headers.js'

async function headersFrom(app: express.Express): Promise<Record<string, string>> {
  const server = createServer(app).listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`)
    const out: Record<string, string> = {}
    res.headers.forEach((v, k) => (out[k] = v))
    for (const k of ['date', 'connection', 'keep-alive', 'content-length', 'content-type', 'etag', 'x-powered-by']) delete out[k]
    return out
  } finally {
    server.close()
  }
}

describe('recordHeaders', () => {
  const policies: [string, Parameters<typeof helmet>[0]][] = [
    ['defaults', undefined],
    ['a relaxed script policy', { contentSecurityPolicy: { directives: { 'script-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'] } } }],
  ]

  it.each(policies)('replays exactly what helmet sets (%s)', async (_name, options) => {
    const real = express()
    real.use(helmet(options))
    real.get('/x', (_req, res) => res.end('ok'))
    const replayed = express()
    const recorded = recordHeaders(helmet(options))
    replayed.use((_req, res, next) => {
      for (const [k, v] of recorded) res.setHeader(k, v)
      next()
    })
    replayed.get('/x', (_req, res) => res.end('ok'))
    const expected = await headersFrom(real)
    expect(Object.keys(expected).length).toBeGreaterThan(8)
    expect(await headersFrom(replayed)).toEqual(expected)
  })

  it('refuses a middleware that does not finish synchronously', () => {
    expect(() => recordHeaders((_req, _res, next) => void setTimeout(next, 1))).toThrow(/synchronously/)
  })
})
