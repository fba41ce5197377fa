// `npm start`: migrate the store, start the market data source, serve HTTP, print the URL and a demo key.
import type { AddressInfo } from 'node:net'
import { createServer, type ServerResponse } from 'node:http'
import { createServices, ensureDemoAccount } from './bootstrap.js'
import { ConfigError, loadConfig } from './config.js'
import { createOpsApp, startRole, stopNode } from './roles.js'
import { answerClientErrors, createApp } from './server.js'
import { StoreLockedError } from './store/data-dir-lock.js'
import type { Database } from './store/database.js'
import { StoreSourceError } from './sources/source-choice.js'
import { sourceBanner } from './sources/source-banner.js'

/** which store, and where: the embedded engine and its directory, or the external PostgreSQL */
function storeBanner(db: Database): string {
  if (!db.embedded) return 'PostgreSQL (DATABASE_URL)'
  return db.embedded.engine === 'postgres' ? `embedded PostgreSQL, a server of its own in ${db.embedded.dir}` : `embedded PGlite, in a thread of its own, in ${db.embedded.dir}`
}

async function main() {
  const config = loadConfig()
  const services = await createServices(config)
  const { logger } = services
  const role = config.ROLE
  const demo = role === 'ingest' ? { apiKey: null } : await ensureDemoAccount(services)
  const started = Date.now()
  const running = await startRole(services, {
    onProgress: (p) =>
      logger.info(
        { day: new Date(p.from).toISOString().slice(0, 10), chunk: `${p.chunk}/${p.chunks}`, bars: p.bars, seconds: Math.round((Date.now() - started) / 1000) },
        'backfill progress',
      ),
  })
  const app = role === 'ingest' ? createOpsApp(services, running.metrics) : createApp(services, running.metrics)
  const server = createServer(app)
  server.keepAliveTimeout = 65_000
  answerClientErrors(server)
  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve))
  const { port } = server.address() as AddressInfo
  const url = `http://${config.HOST}:${port}`
  const lines = [
    '',
    `  Perp analytics is running at ${url}${role === 'all' ? '' : ` (ROLE=${role}${role === 'ingest' ? ': /healthz, /readyz and /metrics only' : ''})`}`,
    `  store:      ${storeBanner(services.db)}`,
    ...(running.runtime ? [`  market:     ${sourceBanner(running.runtime.choice)}`] : []),
    ...(role === 'ingest' ? [] : [`  dashboard:  ${url}/dashboard      GraphQL explorer: ${url}/graphql      OpenAPI: ${url}/openapi.json`]),
    role === 'ingest' ? '' : demo.apiKey ? `  demo key:   ${demo.apiKey}` : '  demo key:   (the store already had accounts; sign up at /v1/auth/signup or use your key)',
    demo.apiKey ? `  try:        curl -H "Authorization: Bearer ${demo.apiKey}" ${url}/v1/markets/exchanges` : '',
    '',
  ]
  process.stdout.write(lines.join('\n') + '\n')

  let stopping = false
  // answers given while shutting down close their connection: server.close() waits for every open connection,
  // and a kept-alive one would hold it until the client or keepAliveTimeout (65 s) lets go
  const inFlight = new Set<ServerResponse>()
  server.on('request', (_req, res: ServerResponse) => {
    if (stopping) res.setHeader('Connection', 'close')
    inFlight.add(res)
    res.once('close', () => inFlight.delete(res))
  })
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down: draining requests')
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close')
    // streams (GET /v1/stream, the GraphQL subscription) never finish by themselves: each ends with a last event,
    // and its clients resume elsewhere
    services.market.stream.close({ reason: 'shutting_down', detail: 'This node is stopping; reconnect with Last-Event-ID (lastEventId) to resume.' })
    server.closeIdleConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const written = await stopNode(services, app, running)
    logger.info(written ? 'stopped' : 'stopped: what was pending could not be written')
    process.exit(written ? 0 : 1)
  }
  const onSignal = (signal: string) =>
    void shutdown(signal).catch((e: unknown) => {
      process.stderr.write(`shutdown failed: ${e instanceof Error ? e.message : String(e)}\n`)
      process.exit(1)
    })
  process.on('SIGTERM', () => onSignal('SIGTERM'))
  process.on('SIGINT', () => onSignal('SIGINT'))
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof ConfigError || e instanceof StoreLockedError || e instanceof StoreSourceError ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
  process.exit(1)
})
