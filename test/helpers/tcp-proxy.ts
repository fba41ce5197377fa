// A small TCP proxy the test owns, in front of the machine's PostgreSQL: cut() drops every connection and
// refuses new ones (the store "goes away"), freeze() keeps every connection open but passes nothing either way
// (the store "hangs"), restore() lets connections through again. The real server is never touched.
import net from 'node:net'

export interface TcpProxy {
  port: number
  cut(): void
  freeze(): void
  restore(): void
  close(): Promise<void>
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  let up = true
  let frozen = false
  const sockets = new Set<net.Socket>()
  const held = new Set<net.Socket>()
  const server = net.createServer((client) => {
    if (!up) return client.destroy()
    if (frozen) {
      // accepted, never answered
      held.add(client)
      client.on('error', () => client.destroy()).on('close', () => held.delete(client))
      return
    }
    const upstream = net.connect(targetPort, targetHost)
    sockets.add(client)
    sockets.add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      up = false
      for (const s of sockets) s.destroy()
      sockets.clear()
    },
    freeze() {
      frozen = true
      for (const s of sockets) {
        s.unpipe()
        s.pause()
      }
    },
    restore() {
      up = true
      frozen = false
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of [...sockets, ...held]) s.destroy()
        server.close(() => r())
      }),
  }
}
