// The metered minute of a push stream (GET /v1/stream and the GraphQL `stream` subscription alike): 1 credit per
// channel, taken from the node's credit lease (src/accounts/credit-leases.ts: exact, never below zero) when each minute starts.
import type { Principal } from '../accounts/authenticate.js'
import { insufficientCredits, unauthorized, type ApiError } from '../errors.js'
import type { Services } from '../services.js'

export const STREAM_PATH = '/v1/stream'

export type MinuteCharge = { ok: true; remaining: number } | { ok: false; error: ApiError; remaining: number | null }

export async function chargeStreamMinute(services: Services, p: Pick<Principal, 'accountId' | 'keyId'>, cost: number, requestId: string, endpoint = STREAM_PATH): Promise<MinuteCharge> {
  const r = await services.charges.charge({ accountId: p.accountId, keyId: p.keyId, cost, endpoint, requestId })
  if (r.ok) {
    services.auth.noteBalance(p.keyId, r.remaining)
    return r
  }
  if (r.reason === 'revoked') {
    services.auth.forgetKey(p.keyId)
    return { ok: false, error: unauthorized('The API key has been revoked.'), remaining: null }
  }
  return { ok: false, error: insufficientCredits(cost, r.remaining), remaining: r.remaining }
}
