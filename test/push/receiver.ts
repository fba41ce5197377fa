// A local webhook receiver for the alert tests (a real socket: deliveries are real HTTP requests). Every delivery
// is told with its path, event id, signature and raw body, and answered 204; while `failing` returns a status, the
// receiver is "down" and answers that instead, telling nothing.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Delivery {
  path: string
  eventId: string
  signature: string
  body: string
}

export interface Receiver {
  /** http://127.0.0.1:<port> */
  base: string
  close(): Promise<void>
}

export async function webhookReceiver(onDelivery: (d: Delivery) => void, opts: { failing?: () => number | null } = {}): Promise<Receiver> {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c))
    req.on('end', () => {
      const failed = opts.failing?.() ?? null
      if (failed !== null) return res.writeHead(failed).end()
      onDelivery({ path: req.url ?? '', eventId: String(req.headers['perp-event-id']), signature: String(req.headers['perp-signature']), body })
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    },
  }
}
