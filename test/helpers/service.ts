// Boot the real service in process on an ephemeral port: the same createServices + createApp as npm start.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pino } from 'pino'
import { createServices } from '../../src/bootstrap.js'
import { loadConfig } from '../../src/config.js'
import { answerClientErrors, createApp } from '../../src/server.js'
import type { Services } from '../../src/services.js'

export interface TestService {
  url: string
  services: Services
  server: Server
  /** sign up a fresh account; returns its key and id */
  signup(email?: string): Promise<{ apiKey: string; accountId: string; keyId: string; credits: number }>
  get(path: string, key?: string | null, headers?: Record<string, string>): Promise<Response>
  setCredits(accountId: string, credits: number): Promise<void>
  close(): Promise<void>
}

let counter = 0

export async function startTestService(opts: { env?: Record<string, string>; clock?: () => number } = {}): Promise<TestService> {
  const config = loadConfig({ DATABASE_URL: 'pglite:memory', RATE_LIMIT_RPS: '0', AUTH_FAILURE_LIMIT: '0', SIGNUP_LIMIT: '0', LOG_LEVEL: 'silent', ...opts.env })
  const services = await createServices(config, { logger: pino({ level: 'silent' }), clock: opts.clock })
  const server = createServer(createApp(services))
  answerClientErrors(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const t: TestService = {
    url,
    services,
    server,
    async signup(email) {
      const res = await fetch(`${url}/v1/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: email ?? `user${++counter}-${Date.now()}@example.com` }),
      })
      if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${await res.text()}`)
      const { data } = (await res.json()) as { data: { api_key: string; account_id: string; key_id: string; credits: number } }
      return { apiKey: data.api_key, accountId: data.account_id, keyId: data.key_id, credits: data.credits }
    },
    get(path, key, headers = {}) {
      return fetch(`${url}${path}`, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } })
    },
    async setCredits(accountId, credits) {
      await services.db.sql.query('UPDATE account SET credits = $2 WHERE id = $1', [accountId, credits])
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
      await services.db.close()
    },
  }
  return t
}

export const expectProblem = async (res: Response, status: number, code: string) => {
  const body = (await res.json()) as Record<string, unknown>
  if (res.status !== status || body.code !== code)
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(body)}`)
  if (!res.headers.get('content-type')?.startsWith('application/problem+json')) throw new Error(`not problem+json: ${res.headers.get('content-type')}`)
  for (const k of ['type', 'title', 'status', 'detail', 'code']) if (!(k in body)) throw new Error(`problem without ${k}: ${JSON.stringify(body)}`)
  return body
}
