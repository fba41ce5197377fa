// Sending an alert: a POST of the JSON event, signed in the scheme we accept from the payment provider
// (Stripe's): `Perp-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, the event id in
// `Perp-Event-Id` for idempotency. Only to public addresses (src/accounts/webhook-address.ts: checked on every
// address the name resolves to, and the connection goes to the address checked: no DNS rebinding). The request is
// written only once the connection is up and `beforeSend` (the charge) agreed, so what was never sent is never paid
// for. One attempt is bounded in time and in what is read back, and its failure is told as a category only: the
// receiver's errors and answers are not a way to look into networks.
import { createHmac } from 'node:crypto'
import dns from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import { refusedAddress } from '../accounts/webhook-address.js'

const TIMEOUT_MS = 5000
/** the event body we send is at most this large */
const MAX_EVENT_BYTES = 16 * 1024
/** what we read of the receiver's answer */
const MAX_ANSWER_BYTES = 4 * 1024

function signature(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`
}

/** why an attempt failed, as much as the rule's owner is told (`last_error`) */
export type DeliveryError = 'refused_address' | 'connection_error' | 'timeout' | 'http_3xx' | 'http_4xx' | 'http_5xx' | 'http_other' | 'invalid_url' | 'too_large' | 'unpaid'

export interface SendOutcome {
  ok: boolean
  /** the HTTP status, or null when no answer came */
  status: number | null
  error: DeliveryError | null
  /** the request was written to the receiver (what a delivery is paid for) */
  sent: boolean
}

const statusError = (status: number): DeliveryError | null =>
  status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? 'http_3xx' : status >= 400 && status < 500 ? 'http_4xx' : status >= 500 && status < 600 ? 'http_5xx' : 'http_other'

/**
 * One attempt. `beforeSend` runs once the connection to a checked address is up, before a byte of the request goes
 * out; false aborts the attempt unsent (`unpaid`), and its failure rejects (nothing was sent; the attempt is retried).
 */
export function sendEvent(url: string, secret: string, eventId: string, body: string, nowMs: number, allowLoopback: boolean, beforeSend: () => Promise<boolean> = async () => true): Promise<SendOutcome> {
  return new Promise((resolve, reject) => {
    let settled = false
    let sent = false
    const done = (o: Omit<SendOutcome, 'sent'>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ ...o, sent })
    }
    const fail = (error: DeliveryError) => done({ ok: false, status: null, error })
    const timer = setTimeout(() => {
      req?.destroy()
      fail('timeout')
    }, TIMEOUT_MS)
    let req: http.ClientRequest | undefined
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return fail('invalid_url')
    }
    if (Buffer.byteLength(body) > MAX_EVENT_BYTES) return fail('too_large')
    const host = target.hostname.replace(/^\[|\]$/g, '')
    if (net.isIP(host) && refusedAddress(host, allowLoopback)) return fail('refused_address')
    let refused = false
    const lookup: net.LookupFunction = (hostname, options, cb) => {
      dns.lookup(hostname, { all: true }, (err, addresses) => {
        if (err) return cb(err, '', 4)
        if (!addresses.length || addresses.some((a) => refusedAddress(a.address, allowLoopback))) {
          refused = true
          return cb(Object.assign(new Error('refused address'), { code: 'EREFUSED' }), '', 4)
        }
        const first = addresses[0]!
        if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [first])
        else cb(null, first.address, first.family)
      })
    }
    const tls = target.protocol === 'https:'
    req = (tls ? https : http).request(target, {
      method: 'POST',
      lookup,
      // a connection of its own: the request is held until it is up (a pooled one would be up already)
      agent: false,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'perp-analytics-alerts/1',
        'perp-event-id': eventId,
        'perp-signature': signature(secret, body, Math.floor(nowMs / 1000)),
      },
    })
    req.on('error', () => fail(refused ? 'refused_address' : 'connection_error'))
    req.on('socket', (socket) => {
      socket.once(tls ? 'secureConnect' : 'connect', () => {
        beforeSend().then(
          (go) => {
            if (settled) return
            if (!go) {
              req!.destroy()
              return fail('unpaid')
            }
            sent = true
            req!.end(body)
          },
          (err: unknown) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            req!.destroy()
            reject(err instanceof Error ? err : new Error(String(err)))
          },
        )
      })
    })
    req.on('response', (res) => {
      let read = 0
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_ANSWER_BYTES) res.destroy()
      })
      const finish = () => {
        const status = res.statusCode ?? 0
        const error = statusError(status)
        done({ ok: error === null, status, error })
      }
      res.on('end', finish)
      res.on('close', finish)
    })
  })
}
