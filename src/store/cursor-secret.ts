// The key paging cursors are sealed with (src/domain/cursor.ts): CURSOR_SECRET when set, else one made once and kept in
// the store (service_secret), so every node of a deployment and every restart seal and open the same cursors.
import { createHmac, randomBytes } from 'node:crypto'
import type { CursorMac } from '../domain/cursor.js'
import type { Sql } from './database.js'

const NAME = 'cursor'
// 128 bits of HMAC-SHA256: a forgery is a 2^-128 guess per try
const TAG_BYTES = 16

/** the stored secret, made by whichever node asks first (nodes starting together agree on the one written) */
export async function storedCursorSecret(sql: Pick<Sql, 'query'>): Promise<Buffer> {
  await sql.query('INSERT INTO service_secret (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [NAME, randomBytes(32)])
  const [row] = await sql.query<{ value: Uint8Array }>('SELECT value FROM service_secret WHERE name = $1', [NAME])
  if (!row) throw new Error('service_secret holds no cursor secret after writing one')
  return Buffer.from(row.value)
}

/** the cursor key: the configured secret, or the store's */
export async function cursorSecret(configured: string | undefined, sql: Pick<Sql, 'query'>): Promise<Buffer> {
  return configured !== undefined ? Buffer.from(configured, 'utf8') : storedCursorSecret(sql)
}

/** the authentication code cursors carry: HMAC-SHA256 under the secret, cut to 128 bits, base64url */
export function cursorMac(secret: Uint8Array): CursorMac {
  return (message) => createHmac('sha256', secret).update(message).digest().subarray(0, TAG_BYTES).toString('base64url')
}
