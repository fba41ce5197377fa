// Preloaded (node --import) into a service process a test wants to live later than the wall clock, e.g. a
// restart "a minute later" without waiting a minute: CLOCK_OFFSET_MS is added to Date.now() and new Date().
const offset = Number(process.env.CLOCK_OFFSET_MS ?? 0)
const RealDate = globalThis.Date
class OffsetDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offset)
    else super(...args)
  }
  static now() {
    return RealDate.now() + offset
  }
}
globalThis.Date = OffsetDate
