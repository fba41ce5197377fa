import { Session } from 'node:inspector/promises'
import { startTestService } from './test/helpers/service.js'
import { largestCalls, largestGraphql } from './test/helpers/largest-calls.js'
import { loopHeld } from './test/helpers/event-loop.js'
const t = await startTestService({ env: { DATABASE_URL: 'pglite:/tmp/heavy-bench/pglite' } })
const a = await t.signup()
await t.setCredits(a.accountId, 1_000_000)
const s = new Session(); s.connect()
await s.post('Profiler.enable'); await s.post('Profiler.setSamplingInterval', { interval: 500 })
const only = process.env.ONLY?.split(',')
const calls: [string, () => Promise<Response>][] = Object.entries(largestCalls(Date.now())).map(([p, q]) => [p, () => t.get(`${p}?${q}`, a.apiKey)])
calls.push(['graphql', () => t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${a.apiKey}` }, body: JSON.stringify({ query: largestGraphql(Date.now()) }) })])
calls.push(['backtest30', () => t.get('/v1/signals/backtest?coin=BTC&lookback=30d', a.apiKey)])
calls.push(['funding1m30d', () => t.get('/v1/funding/history?coin=BTC&interval=1m&lookback=30d&limit=5000', a.apiKey)])
for (const [name, call] of calls) {
  if (only && !only.some((o) => name.includes(o))) continue
  await s.post('Profiler.start')
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const h = await loopHeld(async () => { const r = await call(); return { st: r.status, len: (await r.text()).length } })
  const wall = performance.now() - t0
  const cu = process.cpuUsage(c0)
  const { profile } = await s.post('Profiler.stop')
  const byId = new Map(profile.nodes.map((n: any) => [n.id, n]))
  const self = new Map<string, number>()
  const dts = profile.timeDeltas!
  for (let i = 0; i < profile.samples!.length; i++) {
    const n: any = byId.get(profile.samples![i]!)
    const u: string = n.callFrame.url
    const cat = n.callFrame.functionName.startsWith('(') ? n.callFrame.functionName : u.includes('pglite') || u.startsWith('wasm') || n.callFrame.functionName.startsWith('wasm') ? 'pglite' : u.includes('/src/') ? `${n.callFrame.functionName} ${u.split('/src/')[1]}` : u.includes('node_modules') ? `lib:${u.split('node_modules/')[1]!.split('/')[0]}` : `other:${n.callFrame.functionName} ${u.split('/').pop()}`
    self.set(cat, (self.get(cat) ?? 0) + dts[i]! / 1000)
  }
  const top = [...self].filter(([k]) => k !== '(idle)' && k !== '(program)').sort((x, y) => y[1] - x[1]).slice(0, 8).map(([k, v]) => `${k}=${v.toFixed(0)}`).join(' | ')
  console.log(`${name}: ${h.result.st} ${h.result.len}B wall ${wall.toFixed(0)} cpu ${((cu.user + cu.system) / 1000).toFixed(0)} maxHoldCpu ${h.cpuMs.toFixed(0)} maxHoldWall ${h.wallMs.toFixed(0)}\n    ${top}`)
}
await t.close()
