// Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by playwright-core (never a
// browser download), a fresh profile per test file, every request to another origin recorded and blocked,
// and full-page screenshots kept under test-results/screenshots/ (gitignored) as artifacts.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

/** Debian's chromium package (CI installs it); CHROMIUM_PATH points elsewhere, e.g. to check the skip */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'
export const HAS_CHROMIUM = fs.existsSync(CHROMIUM)
export const SKIP_MESSAGE = `SKIPPED: ${CHROMIUM} not found (install it with: apt-get install -y chromium); the browser tests need it`
if (!HAS_CHROMIUM) console.warn(`[test/browser] ${SKIP_MESSAGE}`)

const SCREENSHOT_DIR = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url))

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

export interface TestBrowser {
  context: BrowserContext
  page: Page
  /** every http(s)/ws request the page tried to make to another origin (all were blocked) */
  external: string[]
  /** uncaught page errors */
  pageErrors: string[]
  /** console errors other than the browser's own "Failed to load resource" for 4xx/5xx answers (e.g. CSP refusals) */
  consoleErrors: string[]
  /** a PNG under test-results/screenshots/; the whole page unless fullPage is false (GraphiQL fills the viewport itself) */
  screenshot(name: string, opts?: { fullPage?: boolean }): Promise<string>
  close(): Promise<void>
}

/** timezoneId: the zone the page believes it is in (UTC unless a test checks conversion to another zone) */
export async function openBrowser(origin: string, opts: { viewport?: { width: number; height: number }; timezoneId?: string } = {}): Promise<TestBrowser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perp-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: opts.viewport ?? { width: 1280, height: 900 },
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: opts.timezoneId ?? 'UTC',
    colorScheme: 'light',
    reducedMotion: 'reduce',
  })
  const external: string[] = []
  const pageErrors: string[] = []
  const consoleErrors: string[] = []
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url())
    if (/^(https?|wss?):$/.test(url.protocol) && url.origin !== origin) {
      external.push(url.href)
      return route.abort('blockedbyclient')
    }
    return route.continue()
  })
  const watch = (page: Page) => {
    page.on('pageerror', (e) => pageErrors.push(e.message))
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) consoleErrors.push(m.text())
    })
    page.on('websocket', (ws) => {
      if (new URL(ws.url()).host !== new URL(origin).host) external.push(ws.url())
    })
  }
  context.on('page', watch)
  const page = context.pages()[0] ?? (await context.newPage())
  watch(page)
  return {
    context,
    page,
    external,
    pageErrors,
    consoleErrors,
    async screenshot(name, { fullPage = true } = {}) {
      fs.mkdirSync(SCREENSHOT_DIR, { recursive: true })
      const file = path.join(SCREENSHOT_DIR, `${name}.png`)
      await page.screenshot({ path: file, fullPage, animations: 'disabled' })
      return file
    },
    async close() {
      await context.close()
      fs.rmSync(userDataDir, { recursive: true, force: true })
    },
  }
}
