// Volume at price: taker buy and sell volume per price level. Levels sit on a geometric grid of 1 basis point, so
// one rule serves every coin at every price (no per-coin tick table) and a level's relative width is the same for a
// $0.10 coin and for BTC.
//   level(p) = floor(ln(p) / ln(1 + STEP)),  level k covers [G^k, G^(k+1)),  G = 1 + STEP

export const VAP_STEP = 1e-4
const LN_G = Math.log1p(VAP_STEP)

/** level -> [buy, sell] */
export type Vap = Map<number, [number, number]>

export function vapLevel(price: number): number {
  return Math.floor(Math.log(price) / LN_G)
}

export function vapLevelLow(level: number): number {
  return Math.exp(level * LN_G)
}

export function vapLevelHigh(level: number): number {
  return Math.exp((level + 1) * LN_G)
}

/** the level's geometric mid price, where its volume is placed when binning */
export function vapLevelMid(level: number): number {
  return Math.exp((level + 0.5) * LN_G)
}
