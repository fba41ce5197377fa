// Venues and market types, as callers name them.
import { z } from 'zod'
import { EXCHANGE_IDS } from '../market/events.js'

export const MARKET_TYPES = ['perp', 'spot'] as const
export const MarketTypeName = z.enum(MARKET_TYPES)

export const ExchangeName = z.enum(EXCHANGE_IDS)
