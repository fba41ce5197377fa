// Charts: credits per day (uPlot bars), OHLC candles + volume (uPlot with a candle-drawing hook, after
// uPlot's candlestick demo), and the volume profile (a horizontal histogram drawn on a canvas).
import uPlot from '/dashboard/vendor/uPlot.esm.js'
import { fmtCompact, fmtDay, fmtInt, fmtPrice, fmtTime } from './api.js'

const DAY = 86_400_000
const COLORS = {
  axis: '#57606a',
  grid: '#eaeef2',
  accent: '#0b5cad',
  up: '#1a7f37',
  down: '#c62828',
  hvn: '#0b5cad',
  lvn: '#6e7781',
  poc: '#b45309',
  valueArea: 'rgba(11, 92, 173, 0.09)',
  text: '#1b1f24',
}

const utc = (ts) => uPlot.tzDate(new Date(ts), 'Etc/UTC')

/** keep a chart as wide as its container */
function fitWidth(el, onWidth) {
  el._resizeObserver?.disconnect()
  let last = el.clientWidth
  const ro = new ResizeObserver(() => {
    const w = el.clientWidth
    if (w > 0 && Math.abs(w - last) > 1) {
      last = w
      onWidth(w)
    }
  })
  ro.observe(el)
  el._resizeObserver = ro
}

function destroy(el) {
  el._resizeObserver?.disconnect()
  el._uplot?.destroy()
  el._uplot = undefined
  el.textContent = ''
}

const axis = (extra = {}) => ({ stroke: COLORS.axis, grid: { stroke: COLORS.grid, width: 1 }, ticks: { stroke: COLORS.grid, width: 1 }, ...extra })

/**
 * Credits spent per UTC day over `days` days, from GET /v1/account/usage (data.by_day), zeros filled in.
 * The window ends at the later of the server's "now" and the last day with data.
 */
export function usageByDayChart(el, descEl, usage) {
  destroy(el)
  const byDay = new Map(usage.by_day.map((d) => [Math.floor(d.day / DAY) * DAY, d.credits]))
  const serverNowDay = Math.floor((usage.since + usage.days * DAY) / DAY) * DAY
  const lastDataDay = usage.by_day.length ? Math.max(...byDay.keys()) : serverNowDay
  const end = Math.max(serverNowDay, lastDataDay)
  const xs = []
  const ys = []
  for (let d = end - (usage.days - 1) * DAY; d <= end; d += DAY) {
    xs.push(d)
    ys.push(byDay.get(d) ?? 0)
  }
  const height = 220
  const opts = {
    width: el.clientWidth || 600,
    height,
    ms: 1,
    tzDate: utc,
    cursor: { drag: { x: false, y: false }, points: { show: false } },
    legend: { show: true },
    scales: {
      x: { time: true, range: (_u, min, max) => [min - DAY * 0.6, max + DAY * 0.6] },
      y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil((max || 0) * 1.15))] },
    },
    axes: [axis({ values: (_u, vals) => vals.map((v) => fmtDay(v).slice(5)) }), axis({ size: 48, values: (_u, vals) => vals.map((v) => (Number.isInteger(v) ? fmtInt(v) : '')) })],
    series: [
      { label: 'Day', value: (_u, v) => (v === null ? '–' : fmtDay(v)) },
      { label: 'Credits', stroke: COLORS.accent, fill: 'rgba(11, 92, 173, 0.8)', width: 0, paths: uPlot.paths.bars({ size: [0.7, 36] }), points: { show: false }, value: (_u, v) => (v === null ? '–' : fmtInt(v)) },
    ],
  }
  el._uplot = new uPlot(opts, [xs, ys], el)
  fitWidth(el, (w) => el._uplot?.setSize({ width: w, height }))
  const total = ys.reduce((s, v) => s + v, 0)
  if (descEl) {
    const busiest = ys.reduce((best, v, i) => (v > best.v ? { v, i } : best), { v: 0, i: -1 })
    descEl.textContent = total
      ? `${fmtInt(total)} credits over the ${usage.days} days from ${fmtDay(xs[0])} to ${fmtDay(xs[xs.length - 1])}; the busiest day was ${fmtDay(xs[busiest.i])} with ${fmtInt(busiest.v)} credits.`
      : `No credits spent from ${fmtDay(xs[0])} to ${fmtDay(xs[xs.length - 1])}.`
  }
}

/** credits per endpoint as labelled horizontal bars (an ordinary list: readable without the picture) */
export function endpointBars(listEl, usage) {
  listEl.textContent = ''
  if (!usage.by_endpoint.length) {
    const li = document.createElement('li')
    li.className = 'empty'
    li.textContent = 'No charged calls yet. Try an endpoint below.'
    listEl.append(li)
    return
  }
  const max = Math.max(...usage.by_endpoint.map((e) => e.credits), 1)
  for (const e of usage.by_endpoint) {
    const li = document.createElement('li')
    const name = document.createElement('span')
    name.className = 'name'
    // let long paths break after a slash, not mid-word
    e.endpoint.split('/').forEach((part, i) => {
      if (i > 0) name.append('/', document.createElement('wbr'))
      name.append(part)
    })
    const val = document.createElement('span')
    val.className = 'val'
    val.textContent = `${fmtInt(e.credits)} credits · ${fmtInt(e.calls)} call${e.calls === 1 ? '' : 's'}`
    const bar = document.createElement('span')
    bar.className = 'bar'
    bar.setAttribute('aria-hidden', 'true')
    const fill = document.createElement('span')
    fill.style.width = `${Math.max(1, (e.credits / max) * 100)}%`
    bar.append(fill)
    li.append(name, val, bar)
    listEl.append(li)
  }
}

const INTERVAL_MS = { '1m': 60_000, '5m': 300_000, '15m': 900_000, '1h': 3_600_000, '4h': 14_400_000, '1d': DAY }

/** candles (+ volume bars underneath) from the data of GET /v1/markets/ohlc */
export function candleChart(el, legendEl, descEl, ohlc) {
  destroy(el)
  legendEl.textContent = ''
  const candles = (ohlc.candles ?? []).filter((c) => [c.open, c.high, c.low, c.close].every((v) => typeof v === 'number'))
  if (!candles.length) {
    el.innerHTML = '<p class="empty">No candles in this window.</p>'
    descEl.textContent = 'No candles in this window.'
    return
  }
  const step = INTERVAL_MS[ohlc.interval] ?? (candles.length > 1 ? candles[1].ts - candles[0].ts : 3_600_000)
  const data = [
    candles.map((c) => c.ts),
    candles.map((c) => c.open),
    candles.map((c) => c.high),
    candles.map((c) => c.low),
    candles.map((c) => c.close),
    candles.map((c) => c.volume ?? 0),
  ]
  const lo = Math.min(...data[3])
  const hi = Math.max(...data[2])
  const span = hi - lo || Math.abs(hi) * 0.01 || 1
  const maxVol = Math.max(...data[5], 0) || 1

  function drawCandles(u) {
    const { ctx } = u
    const [i0, i1] = u.series[0].idxs ?? [0, data[0].length - 1]
    const pxPerStep = Math.abs(u.valToPos(data[0][0] + step, 'x', true) - u.valToPos(data[0][0], 'x', true))
    const body = Math.max(1, Math.min(22 * devicePixelRatio, pxPerStep * 0.7))
    const wick = Math.max(1, Math.round(devicePixelRatio))
    const vol0 = u.valToPos(0, 'vol', true)
    ctx.save()
    ctx.beginPath()
    ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height)
    ctx.clip()
    for (let i = i0; i <= i1; i++) {
      const x = u.valToPos(data[0][i], 'x', true)
      const rising = data[4][i] >= data[1][i]
      ctx.fillStyle = rising ? 'rgba(26, 127, 55, 0.28)' : 'rgba(198, 40, 40, 0.28)'
      const vy = u.valToPos(data[5][i], 'vol', true)
      ctx.fillRect(Math.round(x - body / 2), Math.round(vy), Math.round(body), Math.round(vol0 - vy))
    }
    for (let i = i0; i <= i1; i++) {
      const x = u.valToPos(data[0][i], 'x', true)
      const [o, h, l, c] = [data[1][i], data[2][i], data[3][i], data[4][i]]
      const rising = c >= o
      ctx.fillStyle = rising ? COLORS.up : COLORS.down
      const yh = u.valToPos(h, 'y', true)
      const yl = u.valToPos(l, 'y', true)
      ctx.fillRect(Math.round(x - wick / 2), Math.round(yh), wick, Math.max(1, Math.round(yl - yh)))
      const yo = u.valToPos(o, 'y', true)
      const yc = u.valToPos(c, 'y', true)
      ctx.fillRect(Math.round(x - body / 2), Math.round(Math.min(yo, yc)), Math.round(body), Math.max(1, Math.round(Math.abs(yo - yc))))
    }
    ctx.restore()
  }

  const hidden = { paths: () => null, points: { show: false } }
  const height = 360
  const opts = {
    width: el.clientWidth || 700,
    height,
    ms: 1,
    tzDate: utc,
    cursor: { points: { show: false }, drag: { x: true, y: false } },
    legend: { show: true, live: true },
    scales: {
      x: { time: true, range: (_u, min, max) => [min - step * 0.6, max + step * 0.6] },
      // leave the bottom quarter for the volume bars
      y: { range: () => [lo - span * 0.4, hi + span * 0.06] },
      vol: { range: () => [0, maxVol * 4] },
    },
    axes: [
      // uPlot's own time ticks (they adapt to the zoom), in UTC through tzDate
      axis({ space: 60 }),
      axis({ side: 1, size: 72, values: (_u, vals) => vals.map((v) => fmtPrice(v)) }),
    ],
    series: [
      { label: 'Time (UTC)', value: (_u, v) => (v === null ? '–' : fmtTime(v)) },
      { label: 'Open', stroke: COLORS.text, scale: 'y', ...hidden, value: (_u, v) => fmtPrice(v) },
      { label: 'High', stroke: COLORS.up, scale: 'y', ...hidden, value: (_u, v) => fmtPrice(v) },
      { label: 'Low', stroke: COLORS.down, scale: 'y', ...hidden, value: (_u, v) => fmtPrice(v) },
      { label: 'Close', stroke: COLORS.text, scale: 'y', ...hidden, value: (_u, v) => fmtPrice(v) },
      { label: 'Volume', stroke: COLORS.axis, scale: 'vol', ...hidden, value: (_u, v) => fmtCompact(v) },
    ],
    hooks: { draw: [drawCandles] },
  }
  el._uplot = new uPlot(opts, data, el)
  el.dataset.candles = String(candles.length)
  fitWidth(el, (w) => el._uplot?.setSize({ width: w, height }))

  legendEl.append(swatch(COLORS.up, 'close ≥ open'), swatch(COLORS.down, 'close < open'), swatch('rgba(11,92,173,0.3)', 'volume (bottom, same colours, lighter)'))
  const first = candles[0]
  const last = candles[candles.length - 1]
  const totalVol = candles.reduce((s, c) => s + (c.volume ?? 0), 0)
  descEl.textContent =
    `${candles.length} ${ohlc.interval} candles from ${fmtTime(first.ts)} to ${fmtTime(last.ts)} UTC. ` +
    `Opened at ${fmtPrice(first.open)}, closed at ${fmtPrice(last.close)}; high ${fmtPrice(hi)}, low ${fmtPrice(lo)}; total volume ${fmtCompact(totalVol)}.`
}

function swatch(color, text) {
  const s = document.createElement('span')
  const box = document.createElement('span')
  box.className = 'swatch'
  box.style.background = color
  box.setAttribute('aria-hidden', 'true')
  s.append(box, document.createTextNode(text))
  return s
}

/** nice tick values between lo and hi */
function ticks(lo, hi, count) {
  const raw = (hi - lo) / Math.max(1, count)
  const mag = 10 ** Math.floor(Math.log10(raw || 1))
  const stepTick = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw
  const out = []
  for (let v = Math.ceil(lo / stepTick) * stepTick; v <= hi + stepTick * 1e-9; v += stepTick) out.push(Number(v.toPrecision(12)))
  return out
}

/**
 * The volume profile of GET /v1/structure/volume-profile as a horizontal histogram: price on the vertical
 * axis, volume per level as bar length, HVN and LVN coloured apart, the point of control and the value area marked.
 * Payload: data.levels[{price_low, price_high, volume, buy_volume, sell_volume, node}], data.poc{price, volume},
 * data.value_area{low, high, volume_pct}.
 */
export function volumeProfileChart(el, legendEl, descEl, profile) {
  destroy(el)
  legendEl.textContent = ''
  const levels = [...(profile.levels ?? [])].filter((l) => Number.isFinite(l.price_low) && Number.isFinite(l.price_high)).sort((a, b) => a.price_low - b.price_low)
  if (!levels.length) {
    el.innerHTML = '<p class="empty">No trades in this window, so no profile.</p>'
    descEl.textContent = 'No trades in this window, so no profile.'
    return
  }
  const canvas = document.createElement('canvas')
  canvas.className = 'profile'
  canvas.setAttribute('aria-hidden', 'true')
  el.append(canvas)
  el.dataset.levels = String(levels.length)

  const lo = levels[0].price_low
  const hi = levels[levels.length - 1].price_high
  const maxVol = Math.max(...levels.map((l) => l.volume), 0) || 1
  const poc = profile.poc
  const va = profile.value_area
  // the level holding the point of control (nearest midpoint), drawn in the POC colour
  const pocLevel = poc && Number.isFinite(poc.price) ? levels.reduce((best, l) => (Math.abs((l.price_low + l.price_high) / 2 - poc.price) < Math.abs((best.price_low + best.price_high) / 2 - poc.price) ? l : best)) : null

  const draw = (cssWidth) => {
    const height = Math.max(260, Math.min(620, levels.length * 12 + 60))
    const dpr = devicePixelRatio || 1
    canvas.width = Math.round(cssWidth * dpr)
    canvas.height = Math.round(height * dpr)
    canvas.style.height = `${height}px`
    const ctx = canvas.getContext('2d')
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    ctx.clearRect(0, 0, cssWidth, height)
    ctx.font = '12px system-ui, sans-serif'
    const m = { left: 84, right: 104, top: 12, bottom: 30 }
    const w = Math.max(40, cssWidth - m.left - m.right)
    const h = height - m.top - m.bottom
    const y = (p) => m.top + h - ((p - lo) / (hi - lo || 1)) * h
    const x = (v) => m.left + (v / maxVol) * w

    // value area band
    if (va && Number.isFinite(va.low) && Number.isFinite(va.high)) {
      ctx.fillStyle = COLORS.valueArea
      ctx.fillRect(m.left, y(va.high), w, y(va.low) - y(va.high))
    }
    // price grid + labels
    ctx.strokeStyle = COLORS.grid
    ctx.fillStyle = COLORS.axis
    ctx.textAlign = 'right'
    ctx.textBaseline = 'middle'
    for (const t of ticks(lo, hi, Math.max(3, Math.floor(h / 48)))) {
      const ty = Math.round(y(t)) + 0.5
      ctx.beginPath()
      ctx.moveTo(m.left, ty)
      ctx.lineTo(m.left + w, ty)
      ctx.stroke()
      ctx.fillText(fmtPrice(t), m.left - 8, ty)
    }
    // bars
    for (const l of levels) {
      const top = y(l.price_high)
      const bh = Math.max(1, y(l.price_low) - top - (h / levels.length > 4 ? 1 : 0))
      ctx.fillStyle = l === pocLevel ? COLORS.poc : l.node === 'HVN' ? COLORS.hvn : COLORS.lvn
      ctx.fillRect(m.left, top, Math.max(l.volume > 0 ? 1 : 0, x(l.volume) - m.left), bh)
    }
    // volume axis
    ctx.strokeStyle = COLORS.axis
    ctx.beginPath()
    ctx.moveTo(m.left + 0.5, m.top)
    ctx.lineTo(m.left + 0.5, m.top + h)
    ctx.lineTo(m.left + w, m.top + h + 0.5)
    ctx.stroke()
    ctx.fillStyle = COLORS.axis
    ctx.textBaseline = 'top'
    ctx.textAlign = 'left'
    ctx.fillText('0', m.left, m.top + h + 6)
    ctx.textAlign = 'right'
    ctx.fillText(`${fmtCompact(maxVol)} volume`, m.left + w, m.top + h + 6)

    // value area edges and POC
    const mark = (price, color, dash, label, width = 1.5) => {
      if (!Number.isFinite(price)) return
      const my = Math.round(y(price)) + 0.5
      ctx.save()
      ctx.strokeStyle = color
      ctx.lineWidth = width
      ctx.setLineDash(dash)
      ctx.beginPath()
      ctx.moveTo(m.left, my)
      ctx.lineTo(m.left + w + 6, my)
      ctx.stroke()
      ctx.restore()
      ctx.fillStyle = color
      ctx.textAlign = 'left'
      ctx.textBaseline = 'middle'
      ctx.font = '600 12px system-ui, sans-serif'
      ctx.fillText(label, m.left + w + 10, my)
      ctx.font = '12px system-ui, sans-serif'
    }
    if (va) {
      mark(va.high, COLORS.accent, [4, 3], `VAH ${fmtPrice(va.high)}`, 1)
      mark(va.low, COLORS.accent, [4, 3], `VAL ${fmtPrice(va.low)}`, 1)
    }
    if (poc) mark(poc.price, COLORS.poc, [], `POC ${fmtPrice(poc.price)}`, 2)
  }
  draw(el.clientWidth || 700)
  fitWidth(el, draw)

  legendEl.append(
    swatch(COLORS.hvn, 'high-volume node (HVN)'),
    swatch(COLORS.lvn, 'low-volume node (LVN)'),
    swatch(COLORS.poc, 'point of control (POC)'),
    swatch('rgba(11,92,173,0.25)', `value area${va?.volume_pct ? ` (${Math.round(va.volume_pct)} % of volume)` : ''}`),
  )
  const hvn = levels.filter((l) => l.node === 'HVN').length
  descEl.textContent =
    `${levels.length} price levels from ${fmtPrice(lo)} to ${fmtPrice(hi)}, ${hvn} of them high-volume nodes. ` +
    (poc ? `Point of control at ${fmtPrice(poc.price)} with volume ${fmtCompact(poc.volume)}. ` : '') +
    (va ? `Value area from ${fmtPrice(va.low)} to ${fmtPrice(va.high)}${va.volume_pct ? `, holding ${Math.round(va.volume_pct)} % of the volume` : ''}.` : '')
}
