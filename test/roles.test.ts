// A node's shutdown after HTTP has closed (stopNode, what SIGTERM runs in src/main.ts): the app's timers that read
// the store (the alert engine every ALERT_POLL_MS, the push signals, the all-coins views) stop, and the rounds under
// way finish, before the store closes. Before, the alert engine kept polling a closed store: "alerts: a round failed
// … PGlite is closed" in the log of every SIGTERM (issue 29, item 15).
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createServices } from '../src/bootstrap.js'
import { loadConfig } from '../src/config.js'
import { startRole, stopNode } from '../src/roles.js'
import { createApp } from '../src/server.js'
import type { Services } from '../src/services.js'
import { openTestStore } from './helpers/store.js'

describe('stopNode', () => {
  let services: Services | null = null
  let closed = false
  // a test that fails before its own stopNode: the node is stopped here, not only its store (the app's alert and
  // signal timers, every 20 and 50 ms, ran on in the worker on a closed store otherwise)
  let stop: (() => Promise<unknown>) | null = null
  afterAll(async () => {
    if (services && !closed) await (stop ? stop() : services.db.close())
  })

  it('stops the alert engine and the push signals before the store closes: no round runs on a closed store', async () => {
    const lines: string[] = []
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) })
    // rounds every 20 ms (alerts) and 50 ms (signals), so one runs while the node stops and after, had they not stopped
    const config = loadConfig({ MARKET_SOURCE: 'none', ALERT_POLL_MS: '20', PUSH_SIGNAL_MS: '50', LOG_LEVEL: 'warn' })
    services = await createServices(config, { logger: pino({ level: 'warn' }, sink), db: await openTestStore() })
    const running = await startRole(services)
    const app = createApp(services, running.metrics)
    stop = () => stopNode(services!, app, running)
    // the alert engine asks the store for its rules on every round
    const sql = services.db.sql
    let reads = 0
    const query = sql.query.bind(sql)
    sql.query = ((text: string, params?: unknown[]) => {
      if (/alert_rule/.test(text)) reads++
      return query(text, params as never)
    }) as typeof sql.query
    await vi.waitFor(() => expect(reads, 'the alert engine polls the store').toBeGreaterThan(2), { timeout: 5000 })

    await stopNode(services, app, running)
    closed = true
    const atClose = reads
    // ten alert periods and four signal periods after the store closed
    await new Promise((r) => setTimeout(r, 200))
    expect(reads, 'rule reads after the store closed').toBe(atClose)
    expect(lines.filter((l) => /a round failed|could not be computed|closed/i.test(l))).toEqual([])
  })
})
