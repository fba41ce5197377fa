// Where an alert webhook may go: public unicast addresses only. Refused are the IANA special-purpose blocks that are
// not globally reachable (IPv4 and IPv6 Special-Purpose Address Registries, RFC 6890), multicast, and what would
// reach an IPv4 address through IPv6 (mapped, compatible, NAT64, 6to4, Teredo); loopback unless allowed (local
// receivers, tests). The sender checks every address a name resolves to; a rule whose URL names a refused address
// literally is refused when it is created. The blocks and their sources: docs/streaming.md#deliveries.
import net from 'node:net'
import { invalidParameter } from '../errors.js'

const V4: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network" (RFC 791)
  ['10.0.0.0', 8], // private use (RFC 1918)
  ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
  ['169.254.0.0', 16], // link local (RFC 3927)
  ['172.16.0.0', 12], // private use (RFC 1918)
  ['192.0.0.0', 24], // IETF protocol assignments (RFC 6890)
  ['192.0.2.0', 24], // documentation, TEST-NET-1 (RFC 5737)
  ['192.88.99.0', 24], // 6to4 relay anycast, deprecated (RFC 7526)
  ['192.168.0.0', 16], // private use (RFC 1918)
  ['198.18.0.0', 15], // benchmarking (RFC 2544)
  ['198.51.100.0', 24], // documentation, TEST-NET-2 (RFC 5737)
  ['203.0.113.0', 24], // documentation, TEST-NET-3 (RFC 5737)
  ['224.0.0.0', 4], // multicast (RFC 5771)
  ['240.0.0.0', 4], // reserved (RFC 1112), 255.255.255.255 limited broadcast (RFC 919) in it
]
const V6: readonly [string, number][] = [
  ['::', 96], // unspecified (::/128) and the deprecated IPv4-compatible addresses (RFC 4291)
  ['64:ff9b::', 96], // IPv4/IPv6 translation, NAT64 (RFC 6052): would reach the IPv4 address inside
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation (RFC 8215)
  ['100::', 64], // discard-only (RFC 6666)
  ['2001::', 23], // IETF protocol assignments (RFC 2928), Teredo (RFC 4380) and benchmarking (RFC 5180) in it
  ['2001:db8::', 32], // documentation (RFC 3849)
  ['2002::', 16], // 6to4 (RFC 3056): would reach the IPv4 address inside
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // segment routing SIDs (RFC 9602)
  ['fc00::', 7], // unique local (RFC 4193)
  ['fe80::', 10], // link-local unicast (RFC 4291)
  ['fec0::', 10], // site-local, deprecated (RFC 3879)
  ['ff00::', 8], // multicast (RFC 4291)
]

const blocked = new net.BlockList()
for (const [a, p] of V4) blocked.addSubnet(a, p, 'ipv4')
for (const [a, p] of V6) blocked.addSubnet(a, p, 'ipv6')
const loopback = new net.BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('::1', 'ipv6')

/** why an address may not be called, or null (IPv4-mapped IPv6 addresses are checked as the IPv4 address) */
export function refusedAddress(address: string, allowLoopback: boolean): string | null {
  let ip = address
  let family: 'ipv4' | 'ipv6' = net.isIPv6(ip) ? 'ipv6' : 'ipv4'
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped) [ip, family] = [mapped[1]!, 'ipv4']
  if (loopback.check(ip, family)) return allowLoopback ? null : `${address} is a loopback address`
  if (blocked.check(ip, family)) return `${address} is a private, link-local, reserved or special-purpose address`
  return null
}

/**
 * why a URL's host is refused as written, or null: an address literal that is refused, or a name that always means
 * this host (`localhost` and names under it, RFC 6761) where loopback is not allowed. Other names are checked on
 * every resolution, when a delivery is sent.
 */
function refusedHost(url: URL, allowLoopback: boolean): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (net.isIP(host)) return refusedAddress(host, allowLoopback)
  const name = host.toLowerCase().replace(/\.$/, '')
  if (!allowLoopback && (name === 'localhost' || name.endsWith('.localhost'))) return `${host} is this host (a loopback name)`
  return null
}

/** a rule's url whose host is refused as written is refused at creation (400 naming `url`), not accepted to fail later */
export function assertDeliverable(url: string, allowLoopback: boolean): void {
  const why = refusedHost(new URL(url), allowLoopback)
  if (why) throw invalidParameter('url', `url must reach a public address: ${why}. Deliveries go only to public unicast addresses.`)
}
