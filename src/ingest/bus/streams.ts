// The deployment's JetStream streams (docs/operations.md, "The bus"): their names and limits, and making the ones
// that do not exist — at a node's start and again when NATS comes back without them (memory streams do not survive
// a NATS restart).
import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'

const SECOND_NS = 1_000_000_000

export function streamNames(prefix: string) {
  const up = prefix.toUpperCase().replace(/-/g, '_')
  return { live: `${up}_LIVE`, data: `${up}_DATA`, push: `${up}_PUSH` }
}

function streamConfigs(prefix: string): (Partial<StreamConfig> & { name: string })[] {
  const { live, data, push } = streamNames(prefix)
  return [
    { name: live, subjects: [`${prefix}.live.>`], storage: StorageType.Memory, retention: RetentionPolicy.Limits, max_msgs_per_subject: 1, max_age: 600 * SECOND_NS, discard: DiscardPolicy.Old },
    { name: data, subjects: [`${prefix}.data`], storage: StorageType.Memory, retention: RetentionPolicy.Limits, max_age: 900 * SECOND_NS, max_bytes: 256 * 1024 * 1024, discard: DiscardPolicy.Old },
    { name: push, subjects: [`${prefix}.push.>`], storage: StorageType.Memory, retention: RetentionPolicy.Limits, max_age: 900 * SECOND_NS, max_bytes: 256 * 1024 * 1024, discard: DiscardPolicy.Old, duplicate_window: 120 * SECOND_NS },
  ]
}

/**
 * The first sequence number of a push stream made now: whole seconds × 100,000. A stream NATS lost and that is made
 * again keeps numbering above the one before (ids stay increasing for clients resuming with Last-Event-ID) as
 * long as that one carried fewer than 100,000 events a second on average; 15 digits until the year 2286.
 */
const pushIdBase = (nowMs: number) => Math.floor(nowMs / 1000) * 100_000

/** make every stream that does not exist; each stream's creation time (another one than before: it was made again) */
export async function ensureStreams(nc: NatsConnection, prefix: string, nowMs: number): Promise<Map<string, string>> {
  const jsm = await jetstreamManager(nc)
  const created = new Map<string, string>()
  for (const cfg of streamConfigs(prefix)) {
    // created by whichever node comes first; a concurrent creation of the same stream is fine
    const info = await jsm.streams.info(cfg.name).catch(async () => {
      await jsm.streams.add(cfg).catch(async (e: unknown) => {
        if (!(await jsm.streams.info(cfg.name).then(() => true, () => false))) throw e
      })
      return jsm.streams.info(cfg.name)
    })
    // a push stream that never held a message starts numbering above any stream of the same name before it
    if (cfg.name === streamNames(prefix).push && info.state.last_seq === 0) await jsm.streams.purge(cfg.name, { seq: pushIdBase(nowMs) })
    created.set(cfg.name, info.created)
  }
  return created
}
