// guardWsSends: ccxt.pro's subscription send after its rate-limit turn leaves a closed socket's rejection unhandled
// (Exchange.watch: client.throttle(cost).then(() => { client.send(message) })), which ends a Node process. Seen in the
// live-path tests as "WebSocket is not open: readyState 2 (CLOSING)" from ws' sendAfterClose.
import ccxt from 'ccxt'
import { afterEach, describe, expect, it } from 'vitest'
import { guardWsSends } from '../../../src/sources/connectors/ccxt-access.js'

type Sending = { send(m: unknown): Promise<unknown>; connection: unknown }
const closing = { readyState: 2, send: (_m: unknown, _o: unknown, done: (err?: Error) => void) => done(new Error('WebSocket is not open: readyState 2 (CLOSING)')) }

describe('guardWsSends', () => {
  const seen: unknown[] = []
  const onUnhandled = (reason: unknown) => void seen.push(reason)
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled)
    seen.length = 0
  })

  it("a send on a closing socket that no one awaits (as ccxt's watch makes it) is no unhandled rejection; a caller awaiting it still gets the error", async () => {
    const ex = new ccxt.pro.binanceusdm()
    guardWsSends(ex)
    const client = (ex as unknown as { client(url: string): Sending }).client('wss://fstream.venue.invalid/ws')
    client.connection = closing
    process.on('unhandledRejection', onUnhandled)
    void client.send('{"method":"SUBSCRIBE"}')
    await new Promise((r) => setTimeout(r, 20))
    expect(seen).toEqual([])
    await expect(client.send('{"method":"SUBSCRIBE"}')).rejects.toThrow('WebSocket is not open')
    // the same client every time (ccxt keeps one per URL): guarded once
    expect((ex as unknown as { client(url: string): Sending }).client('wss://fstream.venue.invalid/ws')).toBe(client)
  })
})
