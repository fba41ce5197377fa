// Loaded for its effect (every test process through test/setup.ts, and every service process a test spawns, with
// node --import): a process that loads this can reach loopback (the service under test, the local PostgreSQL, NATS,
// Redis, venue doubles) and nothing else; any other TCP connection fails loudly, so no test ever reaches a venue,
// whatever MARKET_SOURCE=auto finds.
import net from 'node:net'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])
const connect = net.Socket.prototype.connect

function target(args) {
  const first = args[0]
  if (Array.isArray(first)) return target(first)
  if (typeof first === 'object' && first !== null) return first
  if (typeof first === 'number') return { host: typeof args[1] === 'string' ? args[1] : undefined }
  if (typeof first === 'string') return { path: first }
  return {}
}

if (!connect.__offlineGuard) {
  const guarded = function guardedConnect(...args) {
    const { host, path } = target(args)
    // a socket path (IPC) or an omitted host (Node defaults to localhost) stays on this machine
    if (!path && host !== undefined && !LOOPBACK.has(host)) throw new Error(`offline test: a network connection to ${host} was attempted`)
    return connect.apply(this, args)
  }
  guarded.__offlineGuard = true
  net.Socket.prototype.connect = guarded
}
