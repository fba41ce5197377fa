// The registry: every analytics endpoint, once. The GraphQL schema, the REST routes, the credit costs and the
// OpenAPI document are all derived from this list; nothing else lists endpoints.
import '../graphql/schema/index.js'
import { paramsOf } from '../graphql/args.js'
import { builder } from '../graphql/builder.js'
import type { CostTable } from '../graphql/metering.js'
import { coins } from './coins.js'
import type { Endpoint } from './define.js'
import { basis } from './basis.js'
import { cvd } from './cvd.js'
import { divergence } from './divergence.js'
import { exchanges } from './exchanges.js'
import { fundingHistory } from './funding-history.js'
import { fundingArbitrage } from './funding-arbitrage.js'
import { imbalance } from './imbalance.js'
import { largeTrades } from './large-trades.js'
import { liquidationCascade } from './liquidation-cascade.js'
import { marketsOverview } from './markets-overview.js'
import { liquidationHeatmap } from './liquidation-heatmap.js'
import { liquidationHistory } from './liquidation-history.js'
import { liquidationOrders } from './liquidation-orders.js'
import { ohlc } from './ohlc.js'
import { oiChanges } from './oi-changes.js'
import { oiHistory } from './oi-history.js'
import { positioning } from './positioning.js'
import { regime } from './regime.js'
import { signalBacktest } from './signal-backtest.js'
import { snapshot } from './snapshot.js'
import { spread } from './spread.js'
import { takerVolume } from './taker-volume.js'
import { ticker } from './ticker.js'
import { volumeProfileEndpoint } from './volume-profile.js'
import { weightedFunding } from './weighted-funding.js'

export const ENDPOINTS: readonly Endpoint[] = [
  ohlc,
  volumeProfileEndpoint,
  liquidationCascade,
  exchanges,
  coins,
  snapshot,
  divergence,
  spread,
  weightedFunding,
  imbalance,
  ticker,
  oiChanges,
  cvd,
  takerVolume,
  oiHistory,
  fundingHistory,
  basis,
  marketsOverview,
  fundingArbitrage,
  regime,
  largeTrades,
  liquidationHistory,
  liquidationOrders,
  positioning,
  liquidationHeatmap,
  signalBacktest,
]

for (const e of ENDPOINTS) e.register()

export const schema = builder.toSchema({ sortSchema: true })

/** the same schema with its types' fields in the order they are defined: the order the stored REST operations select them in (src/rest/stored-operations.ts) */
export const definitionOrderSchema = () => builder.toSchema({ sortSchema: false })

const BY_FIELD = new Map(ENDPOINTS.map((e) => [e.field, e]))

/** what each root field costs, the REST path its ledger entries are labelled with, and a call's estimated work */
export const COST_TABLE: CostTable = {
  cost: new Map(ENDPOINTS.map((e) => [e.field, e.cost])),
  label: new Map(ENDPOINTS.map((e) => [e.field, e.path])),
  work: (field, args, ctx) => {
    const e = BY_FIELD.get(field)
    return e ? e.work(paramsOf(field, e.params, args, ctx), ctx.now) : 0
  },
}
