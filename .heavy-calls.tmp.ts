import { largestCalls, largestGraphql } from '/work/wt/heavy/test/helpers/largest-calls.ts'
const [port, key] = process.argv.slice(2)
const base = `http://127.0.0.1:${port}`
const auth = { authorization: `Bearer ${key}` }
const only = process.env.ONLY?.split(',')
async function timed(name: string, f: () => Promise<Response>) {
  const t0 = performance.now()
  const r = await f()
  const b = await r.text()
  console.log(`${(performance.now() - t0).toFixed(0).padStart(6)} ms ${r.status} ${b.length} ${name}`)
}
const calls = largestCalls(Date.now())
for (const [p, q] of Object.entries(calls)) {
  if (only && !only.some((o) => p.includes(o))) continue
  await timed(p, () => fetch(`${base}${p}?${q}`, { headers: auth }))
}
if (!only || only.includes('graphql')) await timed('graphql', () => fetch(`${base}/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query: largestGraphql(Date.now()) }) }))
