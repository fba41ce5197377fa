// Cross-venue aggregates that compare like with like: each step's change is measured over the venues present at
// both ends of the step and chained, the way an index carries on through constituent changes. A venue's feed gap
// (or a venue joining) then changes nothing, where a plain sum over whatever is present would jump.
// Methodology: docs/methodology.md#inputs (same-venue aggregates).

import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'

/** one bucket's per-venue values (absent venues are missing keys) */
export interface VenueValues {
  /** one-sided open interest, coins */
  oi: Partial<Record<ExchangeId, number>>
  /** funding rate normalized to 8 h, with the venue's OI in USD as its weight */
  funding: Partial<Record<ExchangeId, { rate8h: number; oiUsd: number }>>
}

export interface LinkedValues {
  /** chain-linked aggregate OI, coins: equal to the sum of the venues at the chain's first bucket, then moved by matched changes */
  oi: number | null
  /** chain-linked OI-weighted funding, 8 h */
  funding8h: number | null
  /** venues the step into this bucket was measured over (at the chain's first bucket: the venues present) */
  oiExchanges: ExchangeId[]
  fundingExchanges: ExchangeId[]
}

const order = (vs: Iterable<string>) => EXCHANGE_IDS.filter((e) => [...vs].includes(e))

function weightedFunding(f: VenueValues['funding'], venues: readonly ExchangeId[]): number | null {
  let w = 0
  let sum = 0
  for (const v of venues) {
    const x = f[v]
    if (!x || !(x.oiUsd > 0) || !Number.isFinite(x.rate8h)) continue
    w += x.oiUsd
    sum += x.rate8h * x.oiUsd
  }
  return w > 0 ? sum / w : null
}

/**
 * Chain-link a series of buckets (oldest first).
 * OI: L_0 = Σ_v OI_v(0); L_t = L_{t−1} · Σ_{v∈S} OI_v(t) / Σ_{v∈S} OI_v(t−1), S = venues with OI at t−1 and t.
 * Funding: F_0 = f(0) over the venues present; F_t = F_{t−1} + f_S(t) − f_S(t−1), f_S the OI-weighted mean over S.
 * With no venue at both ends the level is carried unchanged (and S is empty).
 */
export function chainLink(buckets: readonly VenueValues[]): LinkedValues[] {
  const out: LinkedValues[] = []
  let oi: number | null = null
  let funding: number | null = null
  let prev: VenueValues | null = null
  for (const b of buckets) {
    const presentOi = order(Object.keys(b.oi)).filter((v) => b.oi[v]! > 0 && Number.isFinite(b.oi[v]!))
    let oiVenues: ExchangeId[] = []
    if (oi === null) {
      if (presentOi.length) {
        oi = presentOi.reduce((s, v) => s + b.oi[v]!, 0)
        oiVenues = presentOi
      }
    } else if (prev) {
      const p = prev
      oiVenues = presentOi.filter((v) => p.oi[v]! > 0 && Number.isFinite(p.oi[v]!))
      const before = oiVenues.reduce((s, v) => s + p.oi[v]!, 0)
      const after = oiVenues.reduce((s, v) => s + b.oi[v]!, 0)
      if (before > 0) oi *= after / before
    }

    const presentFunding = order(Object.keys(b.funding)).filter((v) => weightedFunding(b.funding, [v]) !== null)
    let fundingVenues: ExchangeId[] = []
    if (funding === null) {
      funding = weightedFunding(b.funding, presentFunding)
      if (funding !== null) fundingVenues = presentFunding
    } else if (prev) {
      const p = prev
      fundingVenues = presentFunding.filter((v) => weightedFunding(p.funding, [v]) !== null)
      const before = weightedFunding(p.funding, fundingVenues)
      const after = weightedFunding(b.funding, fundingVenues)
      if (before !== null && after !== null) funding += after - before
    }
    out.push({ oi, funding8h: funding, oiExchanges: oiVenues, fundingExchanges: fundingVenues })
    prev = b
  }
  return out
}
