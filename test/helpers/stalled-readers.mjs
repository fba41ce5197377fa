// Run as a child process by tests (its own memory is not the server's): opens one TCP connection per line of
// STALLED_REQUESTS (a JSON array of raw HTTP requests) to 127.0.0.1:STALLED_PORT, sends the request and never reads
// a byte, so everything the server writes piles up in its socket buffers. Prints "connected N" once every socket
// is open and its request written; closes them all when stdin ends.
import net from 'node:net'

const port = Number(process.env.STALLED_PORT)
const requests = JSON.parse(process.env.STALLED_REQUESTS ?? '[]')
const sockets = []
let written = 0
for (const raw of requests) {
  // no 'data' listener and paused at once: the socket reads nothing beyond what the kernel holds
  const s = net.connect({ host: '127.0.0.1', port, readableHighWaterMark: 1 }, () => {
    s.pause()
    s.write(raw, () => {
      if (++written === requests.length) process.stdout.write(`connected ${written}\n`)
    })
  })
  s.on('error', () => {})
  sockets.push(s)
}
process.stdin.on('end', () => {
  for (const s of sockets) s.destroy()
  process.exit(0)
})
process.stdin.resume()
