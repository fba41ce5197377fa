// Venues and market types as zod enums, for parameters (GraphQL and OpenAPI enums are generated from these).
import { z } from 'zod'
import { EXCHANGE_IDS, MARKET_TYPES } from './exchanges.js'

export const MarketTypeName = z.enum(MARKET_TYPES)

export const ExchangeName = z.enum(EXCHANGE_IDS)
