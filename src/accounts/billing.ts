// The payment provider's webhook (Stripe's signing scheme). A checkout.session.completed event adds
// metadata.credits to metadata.account_id exactly once per event id; anything unverifiable changes nothing.
import Stripe from 'stripe'
import type { Database } from '../store/database.js'
import { ApiError, invalidParameter, unavailable } from '../errors.js'
import { grant, MAX_BALANCE } from './credits.js'

export interface WebhookOutcome {
  eventId: string
  type: string
  /** applied: credits added now; duplicate: this event id was already applied; ignored: not a credit event */
  outcome: 'applied' | 'duplicate' | 'ignored'
  accountId: string | null
  creditsAdded: number
  balance: number | null
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** the most one event may add, so a typo cannot mint an absurd balance (Int column range) */
const MAX_CREDITS_PER_EVENT = 100_000_000

export function verifyWebhook(rawBody: Buffer | string, signature: string | undefined, secret: string | undefined, toleranceSeconds: number, nowMs?: number) {
  if (!secret) throw unavailable('Webhooks are refused: STRIPE_WEBHOOK_SECRET is not configured on this service.')
  if (!signature) throw invalidParameter('Stripe-Signature', 'The Stripe-Signature header is missing.')
  // one timestamp only: the library verifies against the last t=, a check of ours could read another
  const stamps = signature.split(',').filter((part) => part.split('=')[0]!.trim() === 't')
  if (stamps.length > 1) throw invalidParameter('Stripe-Signature', 'Webhook signature verification failed: the header carries more than one timestamp (t=).')
  let event
  try {
    // the library's own verification: HMAC-SHA256 over "<t>.<body>", constant-time compare, timestamp tolerance
    event = Stripe.webhooks.constructEvent(rawBody, signature, secret, toleranceSeconds, undefined, nowMs) as unknown as { id: string; type: string; data: { object: Record<string, unknown> } }
  } catch (e) {
    throw invalidParameter('Stripe-Signature', `Webhook signature verification failed: ${(e as Error).message.split('\n')[0]}`)
  }
  // the library bounds only a timestamp's age: a signature dated ahead of now could be replayed until that date
  const signedAt = Number(stamps[0]?.split('=')[1])
  if (signedAt * 1000 > (nowMs ?? Date.now()) + toleranceSeconds * 1000)
    throw invalidParameter('Stripe-Signature', `Webhook signature verification failed: the timestamp is more than ${toleranceSeconds} s in the future.`)
  return event
}

/** Stripe event ids are short printable tokens (evt_…) */
const EVENT_ID = /^[\x21-\x7e]{1,255}$/

export async function applyWebhookEvent(db: Database, event: { id: string; type: string; data: { object: Record<string, unknown> } }): Promise<WebhookOutcome> {
  if (typeof event.id !== 'string' || !EVENT_ID.test(event.id)) throw invalidParameter('id', 'The event id must be 1 to 255 printable characters.')
  if (typeof event.type !== 'string') throw invalidParameter('type', 'The event has no type.')
  const base = { eventId: event.id, type: event.type }
  if (event.type !== 'checkout.session.completed') return { ...base, outcome: 'ignored', accountId: null, creditsAdded: 0, balance: null }
  const metadata = (event.data?.object?.metadata ?? {}) as Record<string, unknown>
  const accountId = typeof metadata.account_id === 'string' ? metadata.account_id : ''
  const rawCredits = metadata.credits
  // Stripe metadata values are strings; accept a plain positive integer only
  const credits = typeof rawCredits === 'string' && /^[0-9]{1,9}$/.test(rawCredits) ? Number(rawCredits) : typeof rawCredits === 'number' ? rawCredits : NaN
  if (!UUID.test(accountId)) throw invalidParameter('metadata.account_id', 'metadata.account_id must be the id of an existing account.')
  if (!Number.isInteger(credits) || credits <= 0 || credits > MAX_CREDITS_PER_EVENT)
    throw invalidParameter('metadata.credits', `metadata.credits must be a positive integer of at most ${MAX_CREDITS_PER_EVENT}.`)
  return db.sql.transaction(async (tx) => {
    const acct = await tx.query<{ id: string }>('SELECT id FROM account WHERE id = $1 FOR UPDATE', [accountId])
    if (!acct.length) throw invalidParameter('metadata.account_id', `No account with id "${accountId}".`)
    const inserted = await tx.query('INSERT INTO payment_event (id, account_id, type, credits) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING RETURNING id', [
      event.id,
      accountId,
      event.type,
      credits,
    ])
    if (!inserted.length) {
      const [b] = await tx.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
      return { ...base, outcome: 'duplicate' as const, accountId, creditsAdded: 0, balance: Number(b!.credits) }
    }
    const after = await grant(tx, accountId, credits, 'purchase', event.id)
    // the whole transaction (with its payment_event row) rolls back, so a later, smaller event can still apply
    if (after === null) throw new ApiError('conflict', `Adding ${credits} credits would take the balance past ${MAX_BALANCE}; nothing was added.`, { parameter: 'metadata.credits' })
    return { ...base, outcome: 'applied' as const, accountId, creditsAdded: credits, balance: after }
  })
}

