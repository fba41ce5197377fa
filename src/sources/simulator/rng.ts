// Small deterministic randomness for the simulator: 32-bit hashing, a seedable PRNG (sfc32), gaussian, Student-t,
// exponential and Poisson sampling, and hash-based value noise (a smooth, stationary random function of time that
// can be evaluated at any instant without walking a path — what makes chunked generation equal one-shot generation).

/** murmur3 finalizer: a good 32-bit mixer */
function mix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** hash of two 32-bit values (order matters) */
export function hash2(a: number, b: number): number {
  return mix32((a ^ Math.imul(mix32(b >>> 0) + 0x9e3779b9, 0x27d4eb2f)) >>> 0)
}

/** FNV-1a over UTF-16 code units, mixed */
export function hashString(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return mix32(h >>> 0)
}

export function seedToU32(seed: number | string): number {
  if (typeof seed === 'string') return hashString(seed)
  if (!Number.isFinite(seed)) throw new RangeError('seed must be a finite number or a string')
  // keep integers < 2^32 as they are (mixed), fold larger / fractional seeds through their decimal text
  return Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32 ? mix32(seed ^ 0x5bd1e995) : hashString(String(seed))
}

const INV_2_32 = 1 / 4294967296

/**
 * sfc32 (Chris Doty-Humphrey's small fast chaotic PRNG, 128-bit state), seeded from one 32-bit value through
 * splitmix-style mixing. reseed() lets one instance be reused for many short streams without allocation.
 */
export class Rng {
  private a = 0
  private b = 0
  private c = 0
  private d = 0
  private spare = 0
  private hasSpare = false

  constructor(seed = 0) {
    this.reseed(seed)
  }

  reseed(seed: number): this {
    const s = seed >>> 0
    this.a = mix32(s + 0x9e3779b9)
    this.b = mix32(s + 0x3c6ef372)
    this.c = mix32(s + 0xdaa66d2b)
    this.d = 1
    this.hasSpare = false
    // a few rounds so that nearby seeds decorrelate
    for (let i = 0; i < 4; i++) this.u32()
    return this
  }

  u32(): number {
    const a = this.a
    const b = this.b
    const c = this.c
    const d = this.d
    const t = (((a + b) | 0) + d) | 0
    this.d = (d + 1) | 0
    this.a = b ^ (b >>> 9)
    this.b = (c + (c << 3)) | 0
    this.c = (((c << 21) | (c >>> 11)) + t) | 0
    return t >>> 0
  }

  /** uniform in [0, 1) */
  next(): number {
    return this.u32() * INV_2_32
  }

  /** uniform in (0, 1] */
  nextOpen(): number {
    return (this.u32() + 1) * INV_2_32
  }

  /** standard normal (Box–Muller, caching the second value) */
  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false
      return this.spare
    }
    const r = Math.sqrt(-2 * Math.log(this.nextOpen()))
    const th = 2 * Math.PI * this.next()
    this.spare = r * Math.sin(th)
    this.hasSpare = true
    return r * Math.cos(th)
  }

  /**
   * Student-t with 4 degrees of freedom scaled to unit variance (excess kurtosis infinite in theory: fat tails).
   * chi²(4) = -2 ln(U1 U2), t = Z / sqrt(chi²/4), var(t4) = 2.
   */
  t4(): number {
    const chi = -2 * Math.log(this.nextOpen() * this.nextOpen())
    return this.normal() * Math.sqrt(2 / chi)
  }

  /** exponential with mean 1 */
  exp(): number {
    return -Math.log(this.nextOpen())
  }

  /** Poisson(lambda): Knuth's product method for small lambda, a rounded normal approximation above 30 */
  poisson(lambda: number): number {
    if (!(lambda > 0)) return 0
    if (lambda > 30) {
      const k = Math.round(lambda + Math.sqrt(lambda) * this.normal())
      return k > 0 ? k : 0
    }
    const l = Math.exp(-lambda)
    let k = 0
    let p = this.next()
    while (p > l) {
      k++
      p *= this.next()
    }
    return k
  }
}

const SQRT3_OVER_255 = Math.sqrt(3) / 255

/** a roughly standard normal value from a hash (Irwin–Hall sum of its four bytes), deterministic in (key, k) */
export function gaussHash(key: number, k: number): number {
  const h = hash2(key, k)
  return ((h & 255) + ((h >>> 8) & 255) + ((h >>> 16) & 255) + (h >>> 24) - 510) * SQRT3_OVER_255
}

/**
 * Value noise: gaussian values at knots every periodMs, smoothstep-interpolated. A stationary, continuous random
 * function of t (sd ≈ 0.85 between knots, 1 at knots) with correlation time ≈ periodMs; f(t) depends only on
 * (key, t, periodMs), never on what was evaluated before.
 */
export function vnoise(key: number, t: number, periodMs: number): number {
  const x = t / periodMs
  const k = Math.floor(x)
  const f = x - k
  const a = gaussHash(key, k)
  const b = gaussHash(key, k + 1)
  return a + (b - a) * (f * f * (3 - 2 * f))
}
