// Imported for its effect: a test process that loads this can reach loopback (the service under test, the local
// PostgreSQL) and nothing else; any other TCP connection fails loudly (no test may reach a venue).
import net from 'node:net'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])
const connect = net.Socket.prototype.connect

function target(args: unknown[]): { host?: string; path?: string } {
  const first = args[0]
  if (Array.isArray(first)) return target(first)
  if (typeof first === 'object' && first !== null) return first as { host?: string; path?: string }
  if (typeof first === 'number') return { host: typeof args[1] === 'string' ? args[1] : undefined }
  if (typeof first === 'string') return { path: first }
  return {}
}

net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
  const { host, path } = target(args)
  // a socket path (IPC) or an omitted host (Node defaults to localhost) stays on this machine
  if (!path && host !== undefined && !LOOPBACK.has(host)) throw new Error(`offline test: a network connection to ${host} was attempted`)
  return (connect as (...a: unknown[]) => net.Socket).apply(this, args)
} as typeof net.Socket.prototype.connect
