// Property tests are reproducible: a fixed seed by default, another one with FC_SEED=<n> (or FC_SEED=random)
// to explore. A failure prints its seed and path, so any counterexample can be replayed.
import fc from 'fast-check'

const seed = process.env.FC_SEED === 'random' ? undefined : Number(process.env.FC_SEED ?? 20_261_121)
fc.configureGlobal({ ...fc.readConfigureGlobal(), ...(seed === undefined ? {} : { seed }) })
