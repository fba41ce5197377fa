// Sending an alert: a POST of the JSON event, signed in the scheme we accept from the payment provider
// (Stripe's): `Perp-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, the event id in
// `Perp-Event-Id` for idempotency. Never to private, link-local, multicast or unspecified addresses (checked on
// every address the name resolves to, and the connection goes to the address checked: no DNS rebinding);
// loopback only with ALERT_ALLOW_LOOPBACK=1. One attempt is bounded in time and in what is read back.
import { createHmac } from 'node:crypto'
import dns from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'

const TIMEOUT_MS = 5000
/** the event body we send is at most this large */
const MAX_EVENT_BYTES = 16 * 1024
/** what we read of the receiver's answer */
const MAX_ANSWER_BYTES = 4 * 1024

function signature(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`
}

const blocked = new net.BlockList()
for (const [a, p] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const)
  blocked.addSubnet(a, p, 'ipv4')
for (const [a, p] of [['::', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32]] as const) blocked.addSubnet(a, p, 'ipv6')
const loopback = new net.BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('::1', 'ipv6')

/** why an address may not be called, or null */
export function refusedAddress(address: string, allowLoopback: boolean): string | null {
  let ip = address
  let family: 'ipv4' | 'ipv6' = net.isIPv6(ip) ? 'ipv6' : 'ipv4'
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped) [ip, family] = [mapped[1]!, 'ipv4']
  if (loopback.check(ip, family)) return allowLoopback ? null : `${address} is a loopback address`
  if (blocked.check(ip, family)) return `${address} is a private, link-local or reserved address`
  return null
}

export interface SendOutcome {
  ok: boolean
  /** the HTTP status, or null when no answer came */
  status: number | null
  error: string | null
}

export function sendEvent(url: string, secret: string, eventId: string, body: string, nowMs: number, allowLoopback: boolean): Promise<SendOutcome> {
  return new Promise((resolve) => {
    const done = (o: SendOutcome) => resolve(o)
    let target: URL
    try {
      target = new URL(url)
    } catch {
      return done({ ok: false, status: null, error: 'the url is not valid' })
    }
    if (Buffer.byteLength(body) > MAX_EVENT_BYTES) return done({ ok: false, status: null, error: 'the event is larger than 16 kB' })
    const host = target.hostname.replace(/^\[|\]$/g, '')
    if (net.isIP(host)) {
      const why = refusedAddress(host, allowLoopback)
      if (why) return done({ ok: false, status: null, error: `refused: ${why}` })
    }
    const lookup: net.LookupFunction = (hostname, options, cb) => {
      dns.lookup(hostname, { all: true }, (err, addresses) => {
        if (err) return cb(err, '', 4)
        const why = addresses.map((a) => refusedAddress(a.address, allowLoopback)).find(Boolean)
        if (why || !addresses.length) return cb(Object.assign(new Error(`refused: ${why ?? 'no address'}`), { code: 'EREFUSED' }), '', 4)
        const first = addresses[0]!
        if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [first])
        else cb(null, first.address, first.family)
      })
    }
    const lib = target.protocol === 'https:' ? https : http
    const req = lib.request(target, {
      method: 'POST',
      lookup,
      timeout: TIMEOUT_MS,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'perp-analytics-alerts/1',
        'perp-event-id': eventId,
        'perp-signature': signature(secret, body, Math.floor(nowMs / 1000)),
      },
    })
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS)
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)))
    req.on('error', (e) => {
      clearTimeout(timer)
      done({ ok: false, status: null, error: e.message.slice(0, 200) })
    })
    req.on('response', (res) => {
      let read = 0
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_ANSWER_BYTES) res.destroy()
      })
      const finish = () => {
        clearTimeout(timer)
        const status = res.statusCode ?? 0
        done({ ok: status >= 200 && status < 300, status, error: status >= 200 && status < 300 ? null : `HTTP ${status}` })
      }
      res.on('end', finish)
      res.on('close', finish)
    })
    req.end(body)
  })
}
