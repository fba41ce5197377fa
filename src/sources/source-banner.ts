// The start banner's market line: which data this process serves, said loudly (MARKET_SOURCE=auto decides at start).
import type { SourceChoice } from './source-choice.js'

export function sourceBanner(choice: SourceChoice): string {
  const s = choice.source
  const what =
    s.kind === 'live' ? `LIVE venue data from ${s.exchanges.join(', ')}`
    : s.kind === 'simulator' ? 'SIMULATED data (the market simulator, not real prices)'
    : s.kind === 'replay' ? `REPLAYED data from the recording ${s.file}`
    : 'NO SOURCE: serving what the store holds'
  return `${what}\n              ${choice.reason}`
}
