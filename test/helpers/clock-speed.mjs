// Preloaded (node --import) into service processes a test wants to run faster than the wall clock, all on one
// shared clock: from CLOCK_EPOCH_MS on, time runs CLOCK_SPEED times as fast (Date.now() and new Date()), so a
// simulated minute closes every 60/CLOCK_SPEED s. Timers are untouched (a 2 s flush timer covers 2 × speed s of
// the clock). The test computes the same clock with warpedNow() from test/helpers/scale-out.ts.
const epoch = Number(process.env.CLOCK_EPOCH_MS)
const speed = Number(process.env.CLOCK_SPEED ?? 1)
const RealDate = globalThis.Date
const now = () => epoch + (RealDate.now() - epoch) * speed
class FastDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(now())
    else super(...args)
  }
  static now() {
    return Math.floor(now())
  }
}
if (Number.isFinite(epoch) && speed > 0) globalThis.Date = FastDate
