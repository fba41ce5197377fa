// What one push stream may cost the node, GET /v1/stream and the GraphQL subscription alike
// (docs/operations.md#caps-and-bounds): the replay a reconnect gets, and the unsent bytes a reader may leave behind
// before it is dropped as too slow.
import type { ServerResponse } from 'node:http'
import type { Config } from '../config.js'
import type { StreamChannel, StreamEvent, StreamHub } from '../read/stream/hub.js'

let newest: { e: StreamEvent; frame: string } | null = null

/**
 * An event on the wire (GET /v1/stream); its length is what the replay and buffer bounds count for both transports.
 * The newest event's frame is kept: the hub hands an event to every stream in turn, which then write one shared string.
 */
export function sseFrame(e: StreamEvent): string {
  if (newest?.e !== e) newest = { e, frame: `id: ${e.id}\nevent: ${e.channel}\ndata: ${JSON.stringify(e.data)}\n\n` }
  return newest.frame
}

/** how long a stream the server ended may take to hand its last bytes to a client that does not read them */
const CLOSE_GRACE_MS = 5000

type Bounds = Pick<Config, 'STREAM_REPLAY_EVENTS' | 'STREAM_REPLAY_BYTES' | 'STREAM_BUFFER_BYTES'>

export interface Replay {
  /** oldest first, each with its frame */
  events: { e: StreamEvent; frame: string }[]
  /** set when older events after the id asked for were left out: sent (as a `replay_truncated` event) before the replay */
  truncated: Record<string, unknown> | null
}

/** the newest retained events after `afterId` within the replay bound: STREAM_REPLAY_EVENTS events, STREAM_REPLAY_BYTES bytes of frames */
export function boundedReplay(hub: StreamHub, channels: readonly StreamChannel[], coins: readonly string[] | null, afterId: number, bounds: Bounds): Replay {
  const { events, more } = hub.recent(channels, coins, afterId, bounds.STREAM_REPLAY_EVENTS)
  const out: Replay['events'] = []
  let bytes = 0
  let cut = more
  for (let i = events.length - 1; i >= 0; i--) {
    const frame = sseFrame(events[i]!)
    if (bytes + frame.length > bounds.STREAM_REPLAY_BYTES) {
      cut = true
      break
    }
    bytes += frame.length
    out.push({ e: events[i]!, frame })
  }
  out.reverse()
  const truncated = cut
    ? {
        reason: 'replay_limit',
        detail: `A reconnect replays at most the newest ${bounds.STREAM_REPLAY_EVENTS} events and ${bounds.STREAM_REPLAY_BYTES} bytes; events after ${afterId} and before ${out[0]?.e.id ?? 'the live ones'} are not replayed.`,
        requested_after: afterId,
        first_id: out[0]?.e.id ?? null,
        max_events: bounds.STREAM_REPLAY_EVENTS,
        max_bytes: bounds.STREAM_REPLAY_BYTES,
      }
    : null
  return { events: out, truncated }
}

/** the last event's data of a stream whose reader fell STREAM_BUFFER_BYTES behind */
export const slowReader = (bounds: Bounds) => ({
  reason: 'slow_reader',
  detail: `More than ${bounds.STREAM_BUFFER_BYTES} bytes of this stream were waiting for the client to read them; it was closed. Reconnect with Last-Event-ID (lastEventId) to resume.`,
  buffer_bytes: bounds.STREAM_BUFFER_BYTES,
})

/** after the server ended a response: its socket is destroyed if the client has not taken the last bytes within the grace */
export function closeWithinGrace(res: ServerResponse): void {
  if (res.writableFinished || res.destroyed) return
  const timer = setTimeout(() => res.destroy(), CLOSE_GRACE_MS).unref()
  res.once('close', () => clearTimeout(timer))
}
