// Trade sizes, in units of a market's typical trade: 92 % log-normal (σ = 0.9, mean 1) and an 8 % Pareto whale tail
// (α = 1.6 from 2.25, capped at 200). drawSize() is one trade; sumSizes() is the total of k trades drawn at once with
// the same distribution: explicitly for few trades, and for many as its parts' sums (CLT for the bulk and the
// moderate whales, the rare large whales drawn one by one, so the sum keeps its fat right tail).
import type { Rng } from './rng.js'

const WHALE_P = 0.08
const LN_SIGMA = 0.9
const LN_MU = -0.5 * LN_SIGMA * LN_SIGMA
const ALPHA = 1.6
const XM = 2.25
const CAP = 200
/** whales above this are drawn one by one in sums */
const BIG = 22.5

const LN_VAR = Math.exp(LN_SIGMA * LN_SIGMA) - 1
/** P(whale >= BIG) */
const P_BIG = (XM / BIG) ** ALPHA

/** E[X^j] of the Pareto restricted to [XM, BIG) */
const truncMoment = (j: number) => ((ALPHA * XM ** ALPHA) / (1 - P_BIG)) * ((BIG ** (j - ALPHA) - XM ** (j - ALPHA)) / (j - ALPHA))
const MID_MEAN = truncMoment(1)
const MID_VAR = truncMoment(2) - MID_MEAN * MID_MEAN

/** E[min(X, CAP)] of the whale Pareto */
const WHALE_MEAN = XM + (XM / (ALPHA - 1)) * (1 - (XM / CAP) ** (ALPHA - 1))

/** mean size of one trade, in typical-trade units */
export const SIZE_MEAN = 1 - WHALE_P + WHALE_P * WHALE_MEAN

/** sums of at most this many draws (and of this many moderate whales) are drawn one by one */
const EXPLICIT = 12

/** one trade's size */
export function drawSize(rng: Rng): number {
  return rng.next() < 1 - WHALE_P ? Math.exp(LN_SIGMA * rng.normal() + LN_MU) : Math.min(CAP, XM * Math.pow(rng.nextOpen(), -1 / ALPHA))
}

/** successes in n trials of probability p: inversion of the distribution when few are expected, else a normal approximation */
export function binomial(rng: Rng, n: number, p: number): number {
  if (n <= 0 || p <= 0) return 0
  if (p >= 1) return n
  const q = Math.min(p, 1 - p)
  let k: number
  if (n * q < 20) {
    // walk the CDF: P(k + 1) = P(k) × (n − k) / (k + 1) × q / (1 − q)
    const r = q / (1 - q)
    let pk = Math.pow(1 - q, n)
    let cdf = pk
    const u = rng.next()
    k = 0
    while (u > cdf && k < n) {
      pk *= ((n - k) / (k + 1)) * r
      cdf += pk
      k++
    }
  } else {
    k = Math.round(n * q + Math.sqrt(n * q * (1 - q)) * rng.normal())
    k = k < 0 ? 0 : k > n ? n : k
  }
  return q === p ? k : n - k
}

/** k draws from N(mean, var) summed as one normal, floored at a fraction of the mean (a sum of positive sizes) */
const normalSum = (rng: Rng, k: number, mean: number, variance: number) => Math.max(0.2 * k * mean, k * mean + Math.sqrt(k * variance) * rng.normal())

/** the total size of k trades */
export function sumSizes(rng: Rng, k: number): number {
  if (k <= EXPLICIT) {
    let s = 0
    for (let j = 0; j < k; j++) s += drawSize(rng)
    return s
  }
  const whales = binomial(rng, k, WHALE_P)
  const big = binomial(rng, whales, P_BIG)
  const mid = whales - big
  const bulk = k - whales
  let s = normalSum(rng, bulk, 1, LN_VAR)
  if (mid <= EXPLICIT) {
    // inverse CDF of the Pareto restricted to [XM, BIG)
    for (let j = 0; j < mid; j++) s += XM * Math.pow(1 - rng.next() * (1 - P_BIG), -1 / ALPHA)
  } else s += normalSum(rng, mid, MID_MEAN, MID_VAR)
  for (let j = 0; j < big; j++) s += Math.min(CAP, BIG * Math.pow(rng.nextOpen(), -1 / ALPHA))
  return s
}
