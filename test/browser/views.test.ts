// The market views in headless Chromium against the service in process, seeded with the simulator: one
// browser and one service for every test. Each view is loaded by its button and checked against the very
// answer the network carried (numbers read back from the page, times in the browser's zone, Asia/Kolkata,
// UTC+5:30, so a UTC time would show). Then what a trader relies on: errors replace what was shown,
// auto-refresh says its hourly cost before it is on, refreshes on the clock, and pauses in a hidden tab.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ENDPOINTS as ROUTES } from '../../src/endpoints/index.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { HAS_CHROMIUM, SKIP_MESSAGE, openBrowser, type TestBrowser } from './browser.js'
import { countPixels, expectShown, headings, loadView, rowCells, setTabHidden, shown, timesIn, zonedText, type Answer } from './dashboard-page.js'

const ZONE = 'Asia/Kolkata'
type Row = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any
const dataOf = (a: Answer) => a.body.data as any // eslint-disable-line @typescript-eslint/no-explicit-any

describe.skipIf(!HAS_CHROMIUM)('market views in Chromium', () => {
  let t: TestService
  let b: TestBrowser
  let page: Page
  let account: { apiKey: string; accountId: string }
  /** GET paths the page called, in order */
  const calls: string[] = []

  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW, listen: true }) // a browser needs a port
    await seedMarket(t)
    account = await t.signup()
    b = await openBrowser(t.url, { timezoneId: ZONE, viewport: { width: 1280, height: 900 } })
    page = b.page
    // fake timers that run at normal speed until a test pauses them
    await b.context.clock.install()
    page.on('request', (r) => {
      const u = new URL(r.url())
      if (u.pathname.startsWith('/v1/') && r.method() === 'GET') calls.push(u.pathname)
    })
    await page.goto(`${t.url}/dashboard`)
    await page.evaluate((k) => localStorage.setItem('perp-analytics.api-key', k), account.apiKey)
    await page.reload()
    await page.locator('#views .view').nth(ROUTES.length - 1).waitFor()
  })
  afterAll(async () => {
    await b?.close()
    await t?.close()
  })

  const balance = async () => shown(await page.locator('#balance').innerText())
  const apiBalance = async () => ((await (await t.get('/v1/account', account.apiKey)).json()) as { data: { credits: number } }).data.credits

  it('has a view for every analytics endpoint, each priced from /openapi.json, and calls none of them on its own', async () => {
    const doc = (await (await t.fetch(`/openapi.json`)).json()) as { paths: Record<string, { get?: { 'x-credits'?: number } }> }
    const paths = await page.locator('#views .view').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.path))
    expect([...paths].sort()).toEqual(ROUTES.map((r) => r.path).sort())
    for (const r of ROUTES) {
      const cost = doc.paths[r.path]!.get!['x-credits']!
      const button = page.locator(`#views .view[data-path="${r.path}"]`).getByRole('button', { name: /^Load/ })
      expect(await button.innerText()).toBe(`Load · ${cost} credit${cost === 1 ? '' : 's'}`)
    }
    expect(calls.filter((p) => ROUTES.some((r) => r.path === p))).toEqual([])
    expect(await page.locator('#auto-summary').innerText()).toMatch(/Auto-refresh is off for every view/)
    // Chromium names the zone by its older ICU id
    expect(await page.locator('#zone-note').innerText()).toMatch(/Asia\/(Kolkata|Calcutta) \(GMT\+5:30\)/)
  })

  it('ticker: one row per coin and venue with mark, index and funding, and times in the browser zone', async () => {
    const before = await balance()
    const a = await loadView(page, 'ticker')
    const rows = dataOf(a) as Row[]
    expect(rows.length).toBeGreaterThan(10)
    expect(rows.some((r) => r.status === 'fresh') && rows.some((r) => r.status === 'no_data')).toBe(true)
    for (const r of rows) {
      const cells = await rowCells(page, 'ticker', `${r.coin} · ${r.exchange}`)
      expect(cells.length, `${r.coin} ${r.exchange}`).toBe(6)
      if (r.ts === null) {
        // a venue listing the coin without values: its row says why instead of numbers and a time
        expect(cells.slice(1, 3)).toEqual(['–', '–'])
        expect(cells[5]).toBe(`${r.status.replace(/_/g, ' ')} ${r.reason}`)
        continue
      }
      // dYdX publishes no mark apart from its oracle (shown as its index): no number
      if (r.mark_price === null) expect([r.exchange, cells[1]]).toEqual(['dydx', '–'])
      else expectShown(cells[1]!, r.mark_price)
      expectShown(cells[2]!, r.index_price)
      expectShown(cells[3]!, r.funding_rate * 100)
      expect(cells[3]).toContain(`/ ${r.funding_interval_hours} h`)
      expect(cells[4]).toContain(zonedText(r.next_funding_time, ZONE))
      expect(cells[5]).toBe(zonedText(r.ts, ZONE))
    }
    // 12:00:30 UTC is 17:30:30 in Kolkata: the page shows the latter, never the former or raw milliseconds
    expect(zonedText(TEST_NOW, ZONE)).toBe('Mar 2, 17:30:30')
    const text = await page.locator('#view-ticker').innerText()
    expect(text).toContain('17:30:30')
    expect(text).not.toContain('12:00:30')
    expect(text).not.toMatch(/\d{13}/)
    for (const time of await timesIn(page, '#view-ticker .view-body')) expect(time.text).toBe(zonedText(Date.parse(time.iso), ZONE))
    await expect.poll(balance).toBe(before - 1)
    expect(await apiBalance()).toBe(before - 1)
  })

  it('ohlc: candles drawn from the answer (count, both colours) and described in the browser zone', async () => {
    const a = await loadView(page, 'ohlc')
    const d = dataOf(a)
    await expect.poll(() => page.locator('#view-ohlc [data-candles]').getAttribute('data-candles')).toBe(String(d.candles.length))
    expect(await countPixels(page, '#view-ohlc', [0x1a, 0x7f, 0x37])).toBeGreaterThan(20)
    expect(await countPixels(page, '#view-ohlc', [0xc6, 0x28, 0x28])).toBeGreaterThan(20)
    const desc = (await page.locator('#view-ohlc figure p.visually-hidden').textContent())!
    expect(desc).toContain(`${d.candles.length} ${d.interval} candles from ${zonedText(d.candles[0].ts, ZONE)}`)
    expectShown(/closed at ([\d,.]+)/.exec(desc)![1]!, d.candles.at(-1).close)
  })

  it('ohlc over a fixed window: the end typed in the reader zone goes out as Unix ms, and nothing is left to auto-refresh', async () => {
    const panel = page.locator('#view-ohlc')
    const box = panel.getByLabel(/^Auto-refresh/)
    expect(await box.isDisabled()).toBe(false)
    await page.locator('#view-ohlc-end').fill('2026-03-02T15:30') // 15:30 in Kolkata is 10:00 UTC
    await expect.poll(() => box.isDisabled()).toBe(true)
    expect(await panel.locator('.auto-cost').innerText()).toMatch(/nothing to refresh/)
    const a = await loadView(page, 'ohlc')
    expect(new URL(a.response.url()).searchParams.get('end')).toBe(String(Date.UTC(2026, 2, 2, 10, 0)))
    expect(dataOf(a).end).toBe(Date.UTC(2026, 2, 2, 10, 0))
    expect(await panel.locator('figcaption').innerText()).toContain('– Mar 2, 15:30')
    await page.locator('#view-ohlc-end').fill('')
    await expect.poll(() => box.isDisabled()).toBe(false)
  })

  it('exchanges: every venue with its type, status and last update', async () => {
    const rows = dataOf(await loadView(page, 'exchanges')) as Row[]
    expect(rows).toHaveLength(5)
    for (const x of rows) expect(await rowCells(page, 'exchanges', x.name)).toEqual([x.name, x.type, x.status, `${zonedText(x.last_update, ZONE)} (now)`])
  })

  it('spread: the spread, cheapest and dearest venue and every venue price', async () => {
    const [s] = dataOf(await loadView(page, 'spread')) as Row[]
    const cols = await headings(page, 'spread')
    const cells = await rowCells(page, 'spread', s!.coin)
    expectShown(cells[1]!, s!.spread_bps)
    expect(cells[3]).toBe(s!.cheapest)
    expect(cells[4]).toBe(s!.dearest)
    for (const p of s!.prices as Row[]) expectShown(cells[cols.indexOf(p.exchange)]!, p.price)
  })

  it('imbalance: the bid/ask ratio and both depths per venue and band, and the aggregate', async () => {
    const [c] = dataOf(await loadView(page, 'imbalance')) as Row[]
    const cols = await headings(page, 'imbalance')
    for (const x of [...(c!.exchanges as Row[]), { ...c!.aggregate, exchange: /^Aggregate/ }]) {
      const cells = await rowCells(page, 'imbalance', x.exchange)
      for (const band of x.bands as Row[]) {
        const cell = cells[cols.indexOf(`±${band.band_pct} %`)]!
        expectShown(cell, band.ratio)
        const [bid, ask] = cell.split('\n')[1]!.split(' / ')
        expectShown(bid!, band.bid_depth_usd)
        expectShown(ask!, band.ask_depth_usd)
      }
    }
  })

  it('weighted funding: the weighted rate, and each venue rate, 8h rate and weight', async () => {
    const [c] = dataOf(await loadView(page, 'weighted-funding')) as Row[]
    expectShown(await page.locator('#view-weighted-funding dl div', { hasText: 'Weighted rate' }).locator('dd').innerText(), c!.weighted_rate * 100)
    for (const x of c!.exchanges as Row[]) {
      const cells = await rowCells(page, 'weighted-funding', x.exchange)
      expectShown(cells[1]!, x.rate * 100)
      expect(cells[1]).toContain(`/ ${x.interval_hours} h`)
      expectShown(cells[2]!, x.rate_8h * 100)
      expectShown(cells[5]!, x.weight * 100)
    }
  })

  it('OI changes: open interest and its 1h/4h/24h change per venue and aggregated; a missing change says why', async () => {
    const [c] = dataOf(await loadView(page, 'oi-changes')) as Row[]
    for (const x of [{ ...c!.aggregate, exchange: 'Aggregate' }, ...(c!.exchanges as Row[])]) {
      const cells = await rowCells(page, 'oi-changes', x.exchange)
      expectShown(cells[2]!, x.oi_usd)
      for (const [i, k] of [[3, 'change_1h'], [4, 'change_4h'], [5, 'change_24h']] as const) {
        const pct = x.changes[k].pct
        if (pct === null) expect(cells[i]).toBe('–')
        else expectShown(cells[i]!, pct)
      }
    }
    const why = (c!.aggregate.changes.change_24h.note as string | null) ?? ''
    if (why) expect(await page.locator('#view-oi-changes tbody tr').first().locator('td').nth(4).getAttribute('title')).toBe(why)
  })

  it('volume profile: one bar per level, point of control and value area from the answer', async () => {
    const d = dataOf(await loadView(page, 'volume-profile'))
    await expect.poll(() => page.locator('#view-volume-profile [data-levels]').getAttribute('data-levels')).toBe(String(d.levels.length))
    const poc = await page.locator('#view-volume-profile dl div', { hasText: 'Point of control' }).locator('dd').innerText()
    expectShown(poc, d.poc.price)
    const va = (await page.locator('#view-volume-profile dl div', { hasText: 'Value area' }).locator('dd').innerText()).split(' – ')
    expectShown(va[0]!, d.value_area.low)
    expectShown(va[1]!, d.value_area.high)
    expect(await countPixels(page, '#view-volume-profile', [0xb4, 0x53, 0x09])).toBeGreaterThan(20) // POC
  })

  it('divergence: each pair on each timeframe with its direction and whether it is active', async () => {
    const [c] = dataOf(await loadView(page, 'divergence')) as Row[]
    const names: Record<string, string> = { oi_price: 'OI / price', cvd_price: 'CVD / price', funding_price: 'Funding / price', spot_perp_cvd: 'Spot / perp CVD' }
    expect(await page.locator('#view-divergence tbody tr').count()).toBe(c!.pairs.length)
    for (const p of c!.pairs as Row[]) {
      const cells = await rowCells(page, 'divergence', `${names[p.pair]} · ${p.timeframe}`)
      expect(cells.slice(1, 4)).toEqual([p.direction, p.z_score === null ? '–' : expect.any(String), p.active ? 'yes' : 'no'])
      expect(cells[4]).toBe(p.note ?? '')
    }
  })

  it('liquidation cascade: needs a trigger price, then shows each phase and the total', async () => {
    const panel = page.locator('#view-liquidation-cascade')
    await panel.getByRole('button', { name: /^Load/ }).click()
    await expect.poll(() => page.locator('#view-liquidation-cascade-trigger_price-error').innerText()).toMatch(/required/)
    expect(await panel.getAttribute('data-state')).toBe('idle')
    await panel.getByLabel(/trigger_price/).fill('80000')
    const d = dataOf(await loadView(page, 'liquidation-cascade'))
    const tables = page.locator('#view-liquidation-cascade table')
    expect(await tables.first().locator('tbody tr').count()).toBe(Math.max(1, d.phases.length))
    // one row per venue, with its liquidated USD and where its leverage tiers came from
    const venues = tables.filter({ hasText: 'Per venue' }).locator('tbody tr')
    expect(await venues.count()).toBe(d.by_exchange.length)
    for (const [i, v] of (d.by_exchange as Row[]).entries()) {
      const cells = await venues.nth(i).locator('th, td').allInnerTexts()
      expect(cells[0]).toBe(v.exchange)
      expectShown(cells[1]!, v.liquidated_usd)
      expect(cells[4]).toContain(v.tier_source)
    }
    for (const p of d.phases as Row[]) {
      const cells = await rowCells(page, 'liquidation-cascade', String(p.phase))
      expectShown(cells[1]!, p.from_price)
      expectShown(cells[2]!, p.to_price)
      expectShown(cells[3]!, p.liquidated_usd)
    }
    expectShown(await panel.locator('dl div', { hasText: 'Liquidated' }).locator('dd').innerText(), d.total_liquidated_usd)
  })

  it('snapshot: every coin in rank order, the regime counts and the top arbitrage', async () => {
    const d = dataOf(await loadView(page, 'snapshot'))
    const ranked = await page.locator('#view-snapshot table').first().locator('tbody tr').evaluateAll((trs) => trs.map((tr) => (tr as HTMLTableRowElement).cells[1]!.innerText))
    expect(ranked).toEqual(d.coins.map((c: Row) => c.coin))
    const regimes = await page.locator('#view-snapshot .hbars li').allInnerTexts()
    for (const [regime, n] of Object.entries(d.regime_distribution as Record<string, number>)) expect(regimes.some((l) => l.startsWith(regime.replace(/_/g, ' ')) && l.includes(`${n} coin`))).toBe(true)
    const arb = page.locator('#view-snapshot table').nth(2)
    expect(await arb.locator('tbody tr').count()).toBe(Math.max(1, d.top_arbitrage.length))
    if (d.top_arbitrage.length) expectShown(await arb.locator('tbody tr').first().locator('td').nth(5).innerText(), d.top_arbitrage[0].net_bps)
    expect(await page.locator('#view-snapshot').innerText()).toContain(`Computed ${zonedText(d.computed_at, ZONE)}`)
  })

  it('an error replaces the data on screen: title, detail, code and request id of the problem, nothing charged', async () => {
    const panel = page.locator('#view-ohlc')
    expect(await panel.locator('[data-candles]').count()).toBe(1) // drawn by the ohlc test above
    const before = await balance()
    await page.locator('#view-ohlc-interval').selectOption('1d')
    await page.locator('#view-ohlc-lookback').selectOption('1h')
    const a = await loadView(page, 'ohlc')
    expect(a.response.status()).toBe(400)
    expect(await panel.getAttribute('data-state')).toBe('error')
    const problem = panel.locator('.problem')
    expect(await problem.getAttribute('role')).toBe('alert')
    const text = await problem.innerText()
    expect(text).toContain(`400 · ${a.body.title}`)
    expect(text).toContain(a.body.detail as string)
    expect(await problem.locator('.problem-code').innerText()).toBe('invalid_parameter')
    expect(await problem.locator('.request-id').innerText()).toBe(a.response.headers()['x-request-id'])
    expect(a.body.request_id).toBe(a.response.headers()['x-request-id'])
    expect(text).toContain(`Allowed interval: ${(a.body.allowed as string[]).join(', ')}`)
    expect(text).toContain('nothing was charged')
    // the candles of the previous answer are gone, not left under the error
    expect(await panel.locator('.view-body canvas, .view-body [data-candles], .view-body figure').count()).toBe(0)
    expect(await balance()).toBe(before)
    expect(await apiBalance()).toBe(before)
    // a good answer replaces the error in turn
    await page.locator('#view-ohlc-interval').selectOption('1h')
    await page.locator('#view-ohlc-lookback').selectOption('24h')
    expect((await loadView(page, 'ohlc')).response.status()).toBe(200)
    expect(await panel.locator('.problem').count()).toBe(0)
    expect(await panel.locator('[data-candles]').count()).toBe(1)
  })

  it('coverage: the venues a figure lacks are named, from the missing lists of today and the coverage object payloads gain', async () => {
    // every coin: the simulator trades three, so the others lack every venue
    await page.locator('#view-spread-coin').selectOption('')
    const entries = dataOf(await loadView(page, 'spread')) as Row[]
    for (const e of entries) {
      const listed = await page.locator(`#view-spread .coverage-item[data-coin="${e.coin}"] li`).evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset.exchange))
      // a partial figure lists the venues its coverage names short (a venue without the market is not); a whole one has no note
      const expected = e.coverage.partial ? e.coverage.missing.filter((m: Row) => m.status !== 'not_listed' && m.status !== 'not_published').map((m: Row) => m.exchange as string) : []
      expect(listed, e.coin).toEqual(expected)
    }
    // coins the simulator trades have venues in the figure; the others lack every venue
    expect(entries.some((e) => e.coverage.exchanges.length > 0) && entries.some((e) => e.coverage.exchanges.length === 0 && e.coverage.partial)).toBe(true)
    await page.locator('#view-spread-coin').selectOption('BTC')

    // a payload with the coverage object, a fresh field, and a band the book does not reach
    await page.route('**/v1/flow/imbalance*', async (route) => {
      const res = await route.fetch()
      const body = await res.json()
      const c = body.data[0]
      c.coverage = { exchanges: ['binance', 'bybit', 'okx', 'hyperliquid'], missing: [{ exchange: 'dydx', status: 'stale', reason: 'book 3 min old' }], from: null, to: null, requested_from: null, requested_to: null, partial: true }
      c.some_future_field = { nested: [1, 2] }
      c.exchanges[0].bid_reach_pct = 1.5
      c.exchanges[0].ask_reach_pct = null
      c.exchanges[0].bands[3] = { band_pct: 5, bid_depth_usd: null, ask_depth_usd: null, ratio: null, source: 'book', granularity_pct: 0, note: 'the bid side reaches 1.5 %' }
      c.aggregate.bands[3].excluded = [{ exchange: c.exchanges[0].exchange, reason: 'book does not reach ±5 %' }]
      await route.fulfill({ response: res, json: body })
    })
    const [c] = dataOf(await loadView(page, 'imbalance')) as Row[]
    await page.unroute('**/v1/flow/imbalance*')
    expect(await page.locator('#view-imbalance').getAttribute('data-state')).toBe('ok')
    expect(await page.locator('#view-imbalance .coverage li').innerText()).toBe('dydx (stale): book 3 min old')
    const cols = await headings(page, 'imbalance')
    const first = await rowCells(page, 'imbalance', c!.exchanges[0].exchange)
    expect(first[cols.indexOf('±5 %')]).toBe('the bid side reaches 1.5 %')
    expect(first[cols.indexOf('Book reaches')]).toBe('bid 1.5 %\nask whole side')
    expectShown(first[cols.indexOf('±0.5 %')]!, c!.exchanges[0].bands[0].ratio)
    const aggregate = await rowCells(page, 'imbalance', /^Aggregate/)
    expect(aggregate[cols.indexOf('±5 %')]).toContain(`without ${c!.exchanges[0].exchange}`)

    // a candle series that covers only part of the window says which part, in the reader's zone
    await page.route('**/v1/markets/ohlc*', async (route) => {
      const res = await route.fetch()
      const body = await res.json()
      const d = body.data
      d.coverage = { exchanges: d.exchanges, missing: [], from: d.candles[0].ts, to: d.end, requested_from: d.start, requested_to: d.end, partial: true }
      await route.fulfill({ response: res, json: body })
    })
    const d = dataOf(await loadView(page, 'ohlc'))
    await page.unroute('**/v1/markets/ohlc*')
    const minute = (ms: number) => new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: ZONE }).format(ms)
    expect(await page.locator('#view-ohlc .coverage').innerText()).toContain(`Covers ${minute(d.candles[0].ts)} – ${minute(d.end)} of the requested ${minute(d.start)} – ${minute(d.end)}.`)
    expect(await page.locator('#view-ohlc [data-candles]').count()).toBe(1)
  })

  it('coverage is shown as the payload says it: venues in part are not "without", a venue publishing no feed is no shortfall, and no candle or hour in progress falls to $0', async () => {
    // the composite drawn from all five venues, each in only in part (the window reaches before the history)
    await page.route('**/v1/markets/ohlc*', async (route) => {
      const res = await route.fetch()
      const body = await res.json()
      const d = body.data
      const missing = d.exchanges.map((exchange: string) => ({ exchange, status: 'truncated', reason: `data from ${new Date(d.candles[0].ts).toISOString()} only` }))
      d.coverage = { exchanges: d.exchanges, missing, from: d.candles[0].ts, to: d.end, requested_from: d.start, requested_to: d.end, partial: true, note: null }
      // a candle without prices (as a client might meet one) at the hour in progress
      d.candles.push({ ...d.candles.at(-1), ts: d.candles.at(-1).ts + 3_600_000, open: 0, high: 0, low: 0, close: 0, volume: 0 })
      await route.fulfill({ response: res, json: body })
    })
    const o = dataOf(await loadView(page, 'ohlc'))
    await page.unroute('**/v1/markets/ohlc*')
    const note = await page.locator('#view-ohlc .coverage').innerText()
    expect(note).not.toContain('without')
    expect(note).toContain(`partial — ${o.exchanges.join(', ')} in only in part`)
    expect(await page.locator('#view-ohlc .coverage li').count()).toBe(o.exchanges.length)
    const priced = o.candles.filter((c: Row) => c.low > 0)
    expect(priced.length).toBe(o.candles.length - 1)
    expect(await page.locator('#view-ohlc [data-candles]').getAttribute('data-candles')).toBe(String(priced.length))
    const low = Math.min(...priced.map((c: Row) => c.low))
    const desc = (await page.locator('#view-ohlc figure p.visually-hidden').textContent())!
    expectShown(desc.slice(desc.indexOf('low ')), low)

    // liquidations: Hyperliquid publishes none (not partial); the hour in progress is said in words, not drawn as a fall
    let asOf = 0
    await page.route('**/v1/liquidations/history*', async (route) => {
      const res = await route.fetch()
      const body = await res.json()
      const d = body.data
      asOf = d.as_of
      const open = Math.floor(d.as_of / 3_600_000) * 3_600_000
      const zero = { ts: open, long_usd: 0, short_usd: 0, total_usd: 0, long_count: 0, short_count: 0 }
      d.aggregate = [...d.aggregate.filter((p: Row) => p.ts < open), zero]
      for (const v of d.exchanges) v.points = [...v.points.filter((p: Row) => p.ts < open), zero]
      // the seeded 6 h leave the 24 h window partial (the streams were up for 6 h of it): answer as for a window the
      // streams covered whole, where only Hyperliquid is missing, publishing no feed; the view must show exactly that
      d.coverage = { ...d.coverage, partial: false, missing: d.coverage.missing.filter((m: Row) => m.status === 'not_published') }
      await route.fulfill({ response: res, json: body })
    })
    const l = dataOf(await loadView(page, 'liquidation-history'))
    await page.unroute('**/v1/liquidations/history*')
    expect(l.coverage.partial).toBe(false)
    expect(l.coverage.missing).toEqual([expect.objectContaining({ exchange: 'hyperliquid', status: 'not_published' })])
    expect(await page.locator('#view-liquidation-history .coverage').count()).toBe(0)
    const whole = l.aggregate.filter((p: Row) => p.ts + 3_600_000 <= asOf).length
    expect(whole).toBe(l.aggregate.length - 1)
    const drawn = await page.locator('#view-liquidation-history [data-points]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.points))
    expect(drawn).toEqual([String(whole), String(whole)])
    expect(await page.locator('#view-liquidation-history .in-progress').innerText()).toMatch(/runs past .* it holds part of its time, so it is not drawn\. In it: longs \$0(\.00)?, shorts \$0/)
  })

  it('times follow the zone the reader picks (UTC here), redrawn from the answer on screen without a new call', async () => {
    const n = calls.length
    const [first] = (await timesIn(page, '#view-ticker .view-body')).slice(-1)
    await page.getByLabel('Times in').selectOption('UTC')
    await expect.poll(async () => (await timesIn(page, '#view-ticker .view-body')).slice(-1)[0]!.text).toBe(zonedText(Date.parse(first!.iso), 'UTC'))
    expect(await page.locator('#view-ticker .view-body').innerText()).toContain('12:00:30')
    expect(await page.locator('#zone-note').innerText()).toBe('Times are shown in UTC (UTC).')
    expect(calls.length).toBe(n)
    await page.getByLabel('Times in').selectOption('local')
    await expect.poll(async () => (await timesIn(page, '#view-ticker .view-body')).slice(-1)[0]!.text).toBe(first!.text)
  })

  it('auto-refresh is off until turned on, says its hourly cost first, refreshes on the clock and pauses in a hidden tab', async () => {
    const doc = (await (await t.fetch(`/openapi.json`)).json()) as { paths: Record<string, { get: { 'x-credits': number } }> }
    const cost = doc.paths['/v1/markets/ticker']!.get['x-credits']
    const panel = page.locator('#view-ticker')
    const box = panel.getByLabel('Auto-refresh every 5 s')
    expect(await box.isChecked()).toBe(false)
    // 3,600 s / 5 s = 720 calls an hour, each at the ticker's price
    expect(await panel.locator('.auto-cost').innerText()).toContain(`Costs about ${(720 * cost).toLocaleString('en-US')} credits an hour (720 calls × ${cost} credit${cost === 1 ? '' : 's'})`)
    const tickerCalls = () => calls.filter((p) => p === '/v1/markets/ticker').length
    // the clock stands still from here: only runFor moves it
    await b.context.clock.pauseAt((await page.evaluate(() => Date.now())) + 10_000)
    const n0 = tickerCalls()
    const before = await balance()

    await box.check()
    await expect.poll(tickerCalls).toBe(n0 + 1) // due at once: the last ticker answer is older than 5 s
    await expect.poll(() => panel.getAttribute('data-auto')).toBe('on')
    await expect.poll(() => page.locator('#auto-summary').getAttribute('data-credits-per-hour')).toBe(String(720 * cost))
    expect(await page.locator('#auto-summary').innerText()).toContain('Auto-refresh is on for Ticker')
    await expect.poll(() => panel.locator('.view-status').innerText()).toMatch(/next refresh at/)

    await b.context.clock.runFor(4_000)
    await page.evaluate(() => 0)
    expect(tickerCalls()).toBe(n0 + 1)
    await b.context.clock.runFor(1_000)
    await expect.poll(tickerCalls).toBe(n0 + 2)
    await expect.poll(balance).toBe(before - 2 * cost)

    await expect.poll(() => panel.locator('.view-status').innerText()).toMatch(/next refresh at/)
    await setTabHidden(page, true)
    await expect.poll(() => panel.getAttribute('data-auto')).toBe('paused')
    expect(await panel.locator('.view-status').innerText()).toMatch(/paused while this tab is hidden/)
    await b.context.clock.runFor(60_000)
    await page.evaluate(() => 0)
    expect(tickerCalls()).toBe(n0 + 2)
    await setTabHidden(page, false)
    await expect.poll(tickerCalls).toBe(n0 + 3) // overdue: refreshed as soon as the tab shows

    await box.uncheck()
    await expect.poll(() => panel.getAttribute('data-auto')).toBe('off')
    await b.context.clock.runFor(30_000)
    await page.evaluate(() => 0)
    expect(tickerCalls()).toBe(n0 + 3)
    expect(await page.locator('#auto-summary').innerText()).toMatch(/off for every view/)
    await expect.poll(apiBalance).toBe(before - 3 * cost)
  })

  it('a balance that runs out stops auto-refresh and shows the 402 in place of the table', async () => {
    const panel = page.locator('#view-ticker')
    const box = panel.getByLabel('Auto-refresh every 5 s')
    await b.context.clock.runFor(10_000)
    await box.check()
    await expect.poll(() => panel.locator('.view-status').innerText()).toMatch(/next refresh at/)
    await t.setCredits(account.accountId, 0)
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/markets/ticker')
    await b.context.clock.runFor(5_000)
    const res = await answer
    expect(res.status()).toBe(402)
    const problem = (await res.json()) as { credits_required: number; credits_remaining: number; request_id: string }
    await expect.poll(() => panel.getAttribute('data-state')).toBe('error')
    expect(await panel.locator('.problem-code').innerText()).toBe('insufficient_credits')
    const needs = `${problem.credits_required} credit${problem.credits_required === 1 ? '' : 's'}`
    expect(await panel.locator('.problem').innerText()).toContain(`This call needs ${needs}; the account has ${problem.credits_remaining}.`)
    expect(await panel.locator('.request-id').innerText()).toBe(problem.request_id)
    expect(await panel.locator('table').count()).toBe(0)
    await expect.poll(() => box.isChecked()).toBe(false)
    expect(await panel.getAttribute('data-auto')).toBe('off')
    expect(await page.locator('#status').innerText()).toMatch(/Auto-refresh is off: the balance does not cover the next call/)
    await expect.poll(balance).toBe(0)
    await t.setCredits(account.accountId, 1000)
    await b.context.clock.resume()
  })

  it('is labelled and works from the keyboard, and fits a phone screen', async () => {
    const unlabeled = await page.evaluate(() =>
      [...document.querySelectorAll('#markets input, #markets select')].filter((el) => !(el as HTMLInputElement).labels?.length).map((el) => el.id),
    )
    expect(unlabeled).toEqual([])
    const unnamed = await page.locator('#views .view').evaluateAll((els) => els.filter((e) => !document.getElementById(e.getAttribute('aria-labelledby') ?? '')?.textContent).map((e) => e.id))
    expect(unnamed).toEqual([])
    // Enter on the focused Load button loads the view
    const response = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/markets/exchanges')
    await page.locator('#view-exchanges').getByRole('button', { name: /^Load/ }).focus()
    await page.keyboard.press('Enter')
    expect((await response).status()).toBe(200)
    await page.setViewportSize({ width: 390, height: 844 })
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await b.screenshot('views-mobile')
    await page.setViewportSize({ width: 1280, height: 900 })
    await b.screenshot('views')
  })

  it('made no request to any other host, and threw no page error or CSP refusal', () => {
    expect(b.external).toEqual([])
    expect(b.pageErrors).toEqual([])
    expect(b.consoleErrors).toEqual([])
  })
})

describe.skipIf(HAS_CHROMIUM)('market views in Chromium', () => {
  it.skip(SKIP_MESSAGE, () => {})
})
