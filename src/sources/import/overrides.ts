// Flags a caller can force on an import (exchange, coin, market type, contract size, unknown sides), checked once.
import { z } from 'zod'
import { EXCHANGE_IDS, MARKET_TYPES, type ExchangeId, type MarketType } from '../../domain/exchanges.js'
import { OKX_SWAP_CONTRACT_SIZES } from './symbols.js'

export interface ImportOverrides {
  exchange?: ExchangeId
  coin?: string
  marketType?: MarketType
  /** coins per contract for contract-denominated sources (tardis okex-swap): one number, or per coin */
  contractSize?: number | Record<string, number>
  /** tardis rows with side "unknown": 'skip' (default, counted in `skipped`) or 'error' */
  unknownSide?: 'skip' | 'error'
}

const OverridesSchema = z.object({
  exchange: z.enum(EXCHANGE_IDS).optional(),
  coin: z
    .string()
    .transform((c) => c.trim().toUpperCase())
    .pipe(z.string().regex(/^[A-Z0-9]+$/, 'coin must be letters/digits like BTC'))
    .optional(),
  marketType: z.enum(MARKET_TYPES).optional(),
  contractSize: z
    .union([z.number().positive().finite(), z.record(z.string(), z.number().positive().finite())])
    .optional(),
  unknownSide: z.enum(['skip', 'error']).optional(),
})

export function checkOverrides(o: ImportOverrides): ImportOverrides {
  const r = OverridesSchema.safeParse(o)
  if (!r.success) throw new Error(`invalid import options: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  const out: ImportOverrides = { ...r.data }
  if (out.contractSize && typeof out.contractSize === 'object') {
    out.contractSize = Object.fromEntries(Object.entries(out.contractSize).map(([k, v]) => [k.toUpperCase(), v]))
  }
  return out
}

/** coins per contract for a coin: the flag (one number or per coin), else the known OKX swap size, else null */
export function contractSizeFor(o: ImportOverrides, coin: string): number | null {
  const cs = o.contractSize
  if (typeof cs === 'number') return cs
  if (cs && cs[coin] !== undefined) return cs[coin]!
  return OKX_SWAP_CONTRACT_SIZES[coin] ?? null
}
