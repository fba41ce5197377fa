// helmet's headers, taken once: helmet sets the same headers on every response for a given configuration
// (no per-request nonces here), so its chain of a dozen middlewares is run once against a recorder and the
// result is replayed per response. helmet stays the source of every header and value.
import type { IncomingMessage, ServerResponse } from 'node:http'

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void

export function recordHeaders(middleware: Middleware): ReadonlyArray<readonly [string, string]> {
  const headers = new Map<string, string>()
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers.set(name, Array.isArray(value) ? value.join(', ') : String(value))
      return recorder
    },
    removeHeader(name: string) {
      headers.delete(name)
    },
    getHeader: (name: string) => headers.get(name),
  }
  let done = false
  middleware({ method: 'GET', url: '/', headers: {} } as IncomingMessage, recorder as unknown as ServerResponse, (err) => {
    if (err) throw err
    done = true
  })
  if (!done) throw new Error('the header middleware did not finish synchronously: its headers cannot be recorded')
  return [...headers]
}
