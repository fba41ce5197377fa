// Estimated positions of one side merged into price buckets, with a heap so a period's range sweeps only the
// buckets it crosses. Used by the liquidation map (liquidation-map.ts).
import { Heap } from 'heap-js'

export interface Bucket {
  key: number
  /** coins / scale */
  units: number
  /** sum of units x liquidation price: the bucket's price is weighted / units */
  weighted: number
  /** additions not yet removed; a bucket swept or emptied is dead (left in the heap, skipped) */
  parts: number
  dead: boolean
}

// Buckets of one side with a binary heap over their keys, so sweeping pops only what a period's range crossed.
export class BucketSet {
  buckets = new Map<number, Bucket>()
  private readonly heap: Heap<Bucket>
  constructor(private readonly highFirst: boolean) {
    this.heap = new Heap<Bucket>(highFirst ? (a, b) => b.key - a.key : (a, b) => a.key - b.key)
  }
  /** add units at liquidation price liq to the bucket `key`; returns the bucket, for remove() */
  add(key: number, liq: number, units: number): Bucket {
    let b = this.buckets.get(key)
    if (!b) {
      this.buckets.set(key, (b = { key, units: 0, weighted: 0, parts: 0, dead: false }))
      this.heap.push(b)
    }
    b.units += units
    b.weighted += units * liq
    b.parts++
    return b
  }
  /** take back one addition of b (unless b was swept since); returns the units taken */
  remove(b: Bucket, units: number, weighted: number): number {
    if (b.dead) return 0
    if (--b.parts === 0) {
      // the last addition: exactly empty, whatever the float residue
      units = b.units
      b.dead = true
      this.buckets.delete(b.key)
    } else {
      b.units -= units
      b.weighted -= weighted
    }
    return units
  }
  /** remove buckets whose price the period reached (longs: price >= low, shorts: price <= high); returns their units and units × price */
  sweep(reached: number): { units: number; weighted: number } {
    let units = 0
    let weighted = 0
    for (let top = this.heap.peek(); top; top = this.heap.peek()) {
      if (top.dead) {
        this.heap.pop()
        continue
      }
      const price = top.weighted / top.units
      if (this.highFirst ? price < reached : price > reached) break
      this.heap.pop()
      top.dead = true
      this.buckets.delete(top.key)
      units += top.units
      weighted += top.weighted
    }
    return { units, weighted }
  }
  rescale(f: number): void {
    for (const b of this.buckets.values()) {
      b.units *= f
      b.weighted *= f
    }
  }
  clear(): void {
    for (const b of this.buckets.values()) b.dead = true
    this.buckets.clear()
    this.heap.clear()
  }
}
