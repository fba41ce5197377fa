// API keys: 32 random bytes (256 bits), shown once; only the SHA-256 hash is stored, with a visible prefix.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

const KEY_PREFIX = 'pa_'
const KEY_PATTERN = /^pa_[A-Za-z0-9_-]{43}$/
/** how much of the key the owner sees in listings */
const VISIBLE_PREFIX_LENGTH = 11

export interface NewKey {
  secret: string
  prefix: string
  hash: string
}

export function generateKey(): NewKey {
  const secret = KEY_PREFIX + randomBytes(32).toString('base64url')
  return { secret, prefix: secret.slice(0, VISIBLE_PREFIX_LENGTH), hash: hashKey(secret) }
}

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

export function isWellFormedKey(secret: string): boolean {
  return KEY_PATTERN.test(secret)
}

const HEX = /^[0-9a-f]*$/
/** constant-time comparison of two hex digests (only well-formed hex of equal length can be equal) */
export function hashesEqual(a: string, b: string): boolean {
  if (a.length !== b.length || a.length % 2 !== 0 || !HEX.test(a) || !HEX.test(b)) return false
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'))
}

/** "Bearer <key>" → key; null when the header is missing or not a bearer credential */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null
  const m = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header)
  return m ? m[1]! : null
}
