// The dashboard in headless Chromium, against the real service in process: sign up, see the credits,
// create a key and see its secret exactly once, revoke it, call ohlc from "try it" (balance -2, candles
// drawn) and volume-profile (profile drawn), all through the public API and without touching another host.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { HAS_CHROMIUM, SKIP_MESSAGE, openBrowser, type TestBrowser } from './browser.js'
import { countPixels, zonedText } from './dashboard-page.js'

/** times show in the browser's zone: New York, so neither UTC nor the machine's zone would pass */
const ZONE = 'America/New_York'

const STORAGE_KEY = 'perp-analytics.api-key'

const balanceOf = async (page: Page) => Number((await page.locator('#balance').innerText()).replace(/[^\d]/g, ''))

describe.skipIf(!HAS_CHROMIUM)('dashboard in Chromium', () => {
  let t: TestService
  let b: TestBrowser
  let page: Page
  const email = `browser-${Date.now()}@example.com`
  let signupKey = ''
  let createdSecret = ''

  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW, listen: true }) // a browser needs a port
    await seedMarket(t)
    b = await openBrowser(t.url, { timezoneId: ZONE })
    page = b.page
    await b.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url })
  })
  afterAll(async () => {
    await b?.close()
    await t?.close()
  })

  const apiCredits = async (key: string) => ((await (await t.get('/v1/account', key)).json()) as { data: { credits: number } }).data.credits

  it('serves the page, its modules and uPlot from the service itself', async () => {
    const res = await page.goto(`${t.url}/dashboard`)
    expect(res?.status()).toBe(200)
    await expect.poll(() => page.locator('#auth').isVisible()).toBe(true)
    expect(await page.title()).toMatch(/Perp analytics/)
    for (const asset of ['/dashboard/assets/app.js', '/dashboard/assets/candle-chart.js', '/dashboard/assets/views/registry.js', '/dashboard/assets/style.css', '/dashboard/vendor/uPlot.esm.js', '/dashboard/vendor/uPlot.min.css']) {
      const r = await t.fetch(`${asset}`)
      expect(r.status, asset).toBe(200)
    }
    expect((await t.fetch(`/dashboard/vendor/../../package.json`)).status).toBe(404)
    // every form control has a label; the status region is announced
    const unlabeled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea')].filter((el) => !(el as HTMLInputElement).labels?.length && !el.getAttribute('aria-label')).map((el) => el.id),
    )
    expect(unlabeled).toEqual([])
    expect(await page.locator('#status').getAttribute('aria-live')).toBe('polite')
    await b.screenshot('dashboard-signed-out')
  })

  it('signs up with an email, keeps the key in localStorage and shows the trial credits', async () => {
    await page.getByLabel('Email').fill(email)
    await page.getByRole('button', { name: 'Create account' }).click()
    await expect.poll(() => page.locator('#app').isVisible()).toBe(true)
    await expect.poll(() => balanceOf(page)).toBe(1000)
    expect(await page.locator('#account-email').innerText()).toBe(email)
    expect(await page.locator('#account-credits').innerText()).toBe('1,000')
    const created = ((await (await t.get('/v1/account', (await page.evaluate((k) => localStorage.getItem(k), STORAGE_KEY))!)).json()) as { data: { created_at: number } }).data.created_at
    expect(await page.locator('#account-created').innerText()).toBe(new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: ZONE }).format(created))
    signupKey = (await page.evaluate((k) => localStorage.getItem(k), STORAGE_KEY))!
    expect(signupKey).toMatch(/^pa_/)
    expect(await apiCredits(signupKey)).toBe(1000)
    // the first key is shown once too, with the warning
    await expect.poll(() => page.locator('#secret-value').inputValue()).toBe(signupKey)
    expect(await page.locator('#secret-panel').innerText()).toMatch(/you won't see it again/i)
    await page.getByRole('button', { name: /I have saved it/ }).click()
    await expect.poll(() => page.locator('#secret-panel').isVisible()).toBe(false)
    await expect.poll(() => page.locator('#keys-table tbody tr').count()).toBe(1)
    await b.screenshot('dashboard-signed-up')
  })

  it('creates a key and shows its secret once, with a copy button; a reload does not show it again', async () => {
    await page.getByLabel('New key name').fill('ci-bot')
    await page.getByRole('button', { name: 'Create key' }).click()
    await expect.poll(() => page.locator('#secret-panel').isVisible()).toBe(true)
    createdSecret = await page.locator('#secret-value').inputValue()
    expect(createdSecret).toMatch(/^pa_[A-Za-z0-9_-]{43}$/)
    expect(createdSecret).not.toBe(signupKey)
    expect(await page.locator('#secret-panel').innerText()).toMatch(/you won't see it again/i)
    expect(await apiCredits(createdSecret)).toBe(1000) // it is a real key of the same account
    await page.getByRole('button', { name: 'Copy', exact: true }).click()
    await expect.poll(() => page.locator('#copy-result').innerText()).toMatch(/Copied/)
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(createdSecret)
    await expect.poll(() => page.locator('#keys-table tbody tr').count()).toBe(2)
    await b.screenshot('dashboard-new-key')

    await page.reload()
    await expect.poll(() => page.locator('#app').isVisible()).toBe(true)
    await expect.poll(() => page.locator('#keys-table tbody tr').count()).toBe(2)
    expect(await page.locator('#secret-panel').isVisible()).toBe(false)
    expect(await page.content()).not.toContain(createdSecret)
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }))
    expect(stored).not.toContain(createdSecret)
    // the listing shows the prefix only, and its creation time in the browser's zone
    const row = page.locator('#keys-table tbody tr', { hasText: 'ci-bot' })
    expect(await row.innerText()).toContain(createdSecret.slice(0, 11))
    const listed = ((await (await t.get('/v1/auth/keys', signupKey)).json()) as { data: { name: string; created_at: number }[] }).data.find((k) => k.name === 'ci-bot')!
    expect(await row.locator('td').nth(2).innerText()).toBe(zonedText(listed.created_at, ZONE))
    expect(await page.locator('#keys-table').innerText()).not.toMatch(/\d{13}/)
  })

  it('revokes a key after confirmation (cancel keeps it); the revoked key then gets 401', async () => {
    const row = page.locator('#keys-table tbody tr', { hasText: 'ci-bot' })
    await row.getByRole('button', { name: /Revoke key ci-bot/ }).click()
    const dialog = page.locator('#confirm-dialog')
    await expect.poll(() => dialog.isVisible()).toBe(true)
    expect(await dialog.innerText()).toMatch(/ci-bot/)
    await b.screenshot('dashboard-revoke-confirm')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await expect.poll(() => dialog.isVisible()).toBe(false)
    expect((await t.get('/v1/account', createdSecret)).status).toBe(200)

    await row.getByRole('button', { name: /Revoke key ci-bot/ }).click()
    await dialog.getByRole('button', { name: 'Revoke key' }).click()
    await expect.poll(() => row.innerText()).toMatch(/revoked/)
    expect(await row.getByRole('button').count()).toBe(0)
    expect((await t.get('/v1/account', createdSecret)).status).toBe(401)
    expect(await page.locator('#status').innerText()).toMatch(/revoked/)
    expect(await balanceOf(page)).toBe(1000) // key management is free
  })

  it('calls /v1/markets/ohlc from "try it": 200, exactly 2 credits off the balance, and a candle chart', async () => {
    const before = await balanceOf(page)
    await expect.poll(() => page.locator('#try-endpoint option').count()).toBeGreaterThan(10)
    await page.getByLabel('Endpoint', { exact: true }).selectOption('/v1/markets/ohlc')
    expect(await page.locator('#try-send').innerText()).toMatch(/2 credits/)
    // the form follows the document: enums as selects with their defaults, the required coin pre-filled
    expect(await page.locator('#param-interval').inputValue()).toBe('1h')
    expect(await page.locator('#param-lookback').inputValue()).toBe('24h')
    expect(await page.locator('#param-market_type').inputValue()).toBe('perp')
    expect(await page.locator('#param-coin').inputValue()).toBe('BTC')
    await page.getByRole('button', { name: /^Send/ }).click()
    await expect.poll(() => page.locator('#try-status').getAttribute('data-status')).toBe('200')
    expect(await page.locator('#try-status').getAttribute('data-charged')).toBe('2')
    expect(await page.locator('#try-status').innerText()).toMatch(/200 OK · charged 2 credits/)
    await expect.poll(() => balanceOf(page)).toBe(before - 2)
    expect(await apiCredits(signupKey)).toBe(before - 2)
    // candles drawn: a uPlot canvas with candle pixels in both colours (#1a7f37 up, #c62828 down)
    await expect.poll(() => page.locator('#try-view [data-candles]').getAttribute('data-candles')).toMatch(/^[1-9]\d*$/)
    await expect.poll(() => countPixels(page, '#try-view', [0x1a, 0x7f, 0x37])).toBeGreaterThan(20)
    expect(await countPixels(page, '#try-view', [0xc6, 0x28, 0x28])).toBeGreaterThan(20)
    expect(await page.locator('#try-json').innerText()).toContain('"candles"')
    // the raw JSON keeps its Unix ms, with the time beside each instant in the browser's zone
    expect(await page.locator('#try-json').innerText()).toContain(`"as_of": ${TEST_NOW} (${zonedText(TEST_NOW, ZONE)})`)
    await expect.poll(() => page.locator('#usage-endpoints').innerText()).toContain('/v1/markets/ohlc')
    // the recent calls list it with its time in the browser's zone and its request id
    const usage = ((await (await t.get('/v1/account/usage', signupKey)).json()) as { data: { recent: { ts: number; endpoint: string; request_id: string }[] } }).data
    const first = await page.locator('#recent-table tbody tr').first().locator('td').allTextContents() // inside a closed <details>
    expect(first).toEqual([zonedText(usage.recent[0]!.ts, ZONE), '/v1/markets/ohlc', '2', usage.recent[0]!.request_id])
    await b.screenshot('dashboard-try-ohlc')
  })

  it('draws the volume profile (HVN/LVN bars, POC) from /v1/structure/volume-profile', async () => {
    const before = await balanceOf(page)
    await page.getByLabel('Endpoint', { exact: true }).selectOption('/v1/structure/volume-profile')
    expect(await page.locator('#param-bins').inputValue()).toBe('50')
    await page.getByRole('button', { name: /^Send/ }).click()
    await expect.poll(() => page.locator('#try-status').getAttribute('data-status')).toMatch(/^(200|503)$/)
    const status = await page.locator('#try-status').getAttribute('data-status')
    if (status === '503') {
      // allowed only while the document says the endpoint is not available
      const doc = (await (await t.fetch(`/openapi.json`)).json()) as { paths: Record<string, { get: { description: string } }> }
      expect(doc.paths['/v1/structure/volume-profile']!.get.description).toMatch(/not available/i)
      expect(await balanceOf(page)).toBe(before)
      return
    }
    await expect.poll(() => balanceOf(page)).toBe(before - 3)
    await expect.poll(() => page.locator('#try-view [data-levels]').getAttribute('data-levels')).toMatch(/^[1-9]\d*$/)
    expect(await countPixels(page, '#try-view', [0x0b, 0x5c, 0xad])).toBeGreaterThan(50) // HVN
    expect(await countPixels(page, '#try-view', [0x6e, 0x77, 0x81])).toBeGreaterThan(50) // LVN
    expect(await countPixels(page, '#try-view', [0xb4, 0x53, 0x09])).toBeGreaterThan(20) // POC
    expect(await page.locator('#try-view figure p.visually-hidden').textContent()).toMatch(/Point of control at .* Value area from/)
    await b.screenshot('dashboard-try-volume-profile')
  })

  it('shows a problem answer (400, nothing charged) for a bad parameter', async () => {
    const before = await balanceOf(page)
    await page.getByLabel('Endpoint', { exact: true }).selectOption('/v1/markets/ohlc')
    await page.locator('#param-interval').selectOption('1d')
    await page.locator('#param-lookback').selectOption('1h')
    await page.getByRole('button', { name: /^Send/ }).click()
    await expect.poll(() => page.locator('#try-status').getAttribute('data-status')).toBe('400')
    expect(await page.locator('#try-status').innerText()).toMatch(/interval/)
    expect(await page.locator('#try-view').isVisible()).toBe(false)
    expect(await balanceOf(page)).toBe(before)
  })

  it('works on a phone-sized screen without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.reload()
    await expect.poll(() => page.locator('#app').isVisible()).toBe(true)
    await expect.poll(() => page.locator('#try-endpoint option').count()).toBeGreaterThan(10)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    await b.screenshot('dashboard-mobile')
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it('signs out, forgetting the key', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await expect.poll(() => page.locator('#auth').isVisible()).toBe(true)
    expect(await page.evaluate((k) => localStorage.getItem(k), STORAGE_KEY)).toBeNull()
  })

  it('signs back in by pasting a key; a revoked or malformed key is refused at the field', async () => {
    const input = page.getByLabel('API key', { exact: true })
    await input.fill('not-a-key')
    await page.getByRole('button', { name: 'Use this key' }).click()
    await expect.poll(() => page.locator('#key-input-error').innerText()).toMatch(/pa_/)
    expect(await input.getAttribute('aria-invalid')).toBe('true')
    await input.fill(createdSecret) // revoked above
    await page.getByRole('button', { name: 'Use this key' }).click()
    await expect.poll(() => page.locator('#key-input-error').innerText()).toMatch(/revoked/)
    expect(await page.locator('#app').isVisible()).toBe(false)
    await input.fill(signupKey)
    await page.getByRole('button', { name: 'Use this key' }).click()
    await expect.poll(() => page.locator('#app').isVisible()).toBe(true)
    await expect.poll(() => balanceOf(page)).toBe(await apiCredits(signupKey))
    expect(await page.evaluate((k) => localStorage.getItem(k), STORAGE_KEY)).toBe(signupKey)
  })

  it('made no request to any other host, and threw no page error or CSP refusal', () => {
    expect(b.external).toEqual([])
    expect(b.pageErrors).toEqual([])
    expect(b.consoleErrors).toEqual([])
  })
})

describe.skipIf(HAS_CHROMIUM)('dashboard in Chromium', () => {
  it.skip(SKIP_MESSAGE, () => {})
})
