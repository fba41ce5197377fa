// Reading the dashboard in tests: load a view and capture the very answer it drew, find a table row by its
// heading cell, read a number back from how the page prints it, and the time text expected in a zone.
import { expect } from 'vitest'
import type { Page, Response } from 'playwright-core'

export interface Answer {
  response: Response
  body: { data: unknown; meta?: { request_id: string; as_of: number; credits_charged: number } } & Record<string, unknown>
}

/** press a view's Load button and wait until it shows an answer; returns that answer as the network carried it */
export async function loadView(page: Page, id: string): Promise<Answer> {
  const panel = page.locator(`#view-${id}`)
  const path = (await panel.getAttribute('data-path'))!
  const answers = Number((await panel.getAttribute('data-answers')) ?? 0)
  const response = page.waitForResponse((r) => new URL(r.url()).pathname === path && r.request().method() === 'GET')
  await panel.getByRole('button', { name: /^Load/ }).click()
  const res = await response
  await expect.poll(async () => Number((await panel.getAttribute('data-answers')) ?? 0)).toBe(answers + 1)
  expect(await panel.getAttribute('data-state')).toMatch(/^(ok|error)$/)
  return { response: res, body: (await res.json()) as Answer['body'] }
}

/** the cell texts of the row whose heading cell (first column) reads `heading`, in a view */
export function rowCells(page: Page, viewId: string, heading: string | RegExp, within = ''): Promise<string[]> {
  const source = heading instanceof RegExp ? heading.source : null
  return page.evaluate(
    ({ sel, text, source }) => {
      const rows = [...document.querySelectorAll<HTMLTableRowElement>(`${sel} tbody tr`)]
      const match = (t: string) => (source ? new RegExp(source).test(t) : t === text)
      const row = rows.find((r) => r.cells[0] && match(r.cells[0].innerText.trim()))
      return row ? [...row.cells].map((c) => c.innerText.trim()) : []
    },
    { sel: `#view-${viewId} ${within}`.trim(), text: typeof heading === 'string' ? heading : '', source },
  )
}

/** the column headings of the first table in a view (or under `within`) */
export function headings(page: Page, viewId: string, within = ''): Promise<string[]> {
  return page.locator(`#view-${viewId} ${within} thead th`.replace(/\s+/g, ' ')).allInnerTexts()
}

const SCALE: Record<string, number> = { K: 1e3, M: 1e6, B: 1e9, T: 1e12 }
const NUMBER = /([+\-\u2212]?)\$?(\d[\d,]*(?:\.(\d+))?|\.(\d+))\s?([KMBT])?(?![a-z])/

/**
 * The first number in a text as the page prints it ("86,166.8", "+0.0223 % / 8 h", "$13.64B", "5.8 bps",
 * "424.68K", "-0.08 %"), suffixes applied, percent left as printed; and half a unit of its last printed digit.
 */
function parse(text: string): { value: number; halfUnit: number } {
  const m = NUMBER.exec(text)
  if (!m) throw new Error(`no number in ${JSON.stringify(text)}`)
  const scale = m[5] ? SCALE[m[5]]! : 1
  const decimals = (m[3] ?? m[4] ?? '').length
  const v = Number(m[2]!.replace(/,/g, '')) * scale
  return { value: m[1] === '-' || m[1] === '\u2212' ? -v : v, halfUnit: 0.5 * 10 ** -decimals * scale }
}

export const shown = (text: string) => parse(text).value

/** the printed number is `expected` rounded to the digits printed */
export function expectShown(text: string, expected: number) {
  const { value, halfUnit } = parse(text)
  expect(Math.abs(value - expected), `${JSON.stringify(text)} should show ${expected}`).toBeLessThanOrEqual(halfUnit * (1 + 1e-9))
}

/** the page's short time format ("Mar 2, 17:30:30"), computed here with Node's own Intl in the given zone */
export const zonedText = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZone }).format(ms)

/** every <time> in a region: its instant (from datetime) and its text */
export function timesIn(page: Page, selector: string): Promise<{ iso: string; text: string }[]> {
  return page.locator(`${selector} time`).evaluateAll((els) => els.map((e) => ({ iso: (e as HTMLTimeElement).dateTime, text: (e as HTMLElement).innerText.trim() })))
}

/** how many pixels of the canvases inside `selector` have this colour (±12 per channel) */
export function countPixels(page: Page, selector: string, rgb: [number, number, number]) {
  return page.evaluate(
    ([sel, [r, g, b]]) => {
      let n = 0
      for (const canvas of document.querySelectorAll<HTMLCanvasElement>(`${sel} canvas`)) {
        const ctx = canvas.getContext('2d')
        if (!ctx || !canvas.width || !canvas.height) continue
        const px = ctx.getImageData(0, 0, canvas.width, canvas.height).data
        for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i]! - r) <= 12 && Math.abs(px[i + 1]! - g) <= 12 && Math.abs(px[i + 2]! - b) <= 12 && px[i + 3]! > 200) n++
      }
      return n
    },
    [selector, rgb] as const,
  )
}

/** headless Chromium keeps every page visible, so a hidden tab is emulated the way the page observes it */
export function setTabHidden(page: Page, hidden: boolean) {
  return page.evaluate((h) => {
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') })
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => h })
    document.dispatchEvent(new Event('visibilitychange'))
  }, hidden)
}
