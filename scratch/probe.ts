import { startTestService } from '../test/helpers/service.js'
const t = await startTestService()
const a = await t.signup()
const show = async (what: string, r: Response) => console.log(what, r.status, JSON.stringify(Object.fromEntries(r.headers)), (await r.text()).slice(0, 300))
const aliases = Array.from({ length: 21 }, (_, i) => `t${i}: exchanges { id }`).join(' ')
for (const accept of ['application/json', 'application/graphql-response+json']) {
  await show(`alias ${accept}`, await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${a.apiKey}` }, body: JSON.stringify({ query: `{ ${aliases} }` }) }))
  await show(`tokens ${accept}`, await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${a.apiKey}` }, body: JSON.stringify({ query: `{ ${'exchanges { id } '.repeat(1000)} }` }) }))
  await show(`unknown field ${accept}`, await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${a.apiKey}` }, body: JSON.stringify({ query: `{ nope }` }) }))
}
await show('HEAD graphql', await fetch(`${t.url}/graphql?query=${encodeURIComponent('{ exchanges { id } }')}`, { method: 'HEAD', headers: { authorization: `Bearer ${a.apiKey}` } }))
await show('OPTIONS graphql', await fetch(`${t.url}/graphql`, { method: 'OPTIONS', headers: { origin: 'https://x.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } }))
await show('OPTIONS ticker', await fetch(`${t.url}/v1/markets/ticker`, { method: 'OPTIONS', headers: { origin: 'https://x.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } }))
await show('big graphql', await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ exchanges { id } }', pad: 'x'.repeat(20000) }) }))
console.log(await t.services.db.sql.query(`select count(*) from credit_ledger where kind='charge'`))
await t.close()
