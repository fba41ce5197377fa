// A `ws` client for one test. Nothing of it outlives the test: it is terminated when the test ends, so no reset or
// close handshake of it fires later, while another file runs in the same worker (an 'error' on a WebSocket without a
// listener ends the process). While the test runs its errors are the test's own: they are not listened to here.
import WebSocket from 'ws'
import { onTestFinished } from 'vitest'

export function testSocket(url: string): WebSocket {
  const ws = new WebSocket(url)
  onTestFinished(() => {
    // the test is over: a reset, or a handshake cut short by terminate() itself, is expected now
    ws.on('error', () => {})
    ws.terminate()
  })
  return ws
}
