// OHLC candles with volume bars underneath (uPlot with a candle-drawing hook, after uPlot's candlestick
// demo), times on the axis and in the legend in the zone the page shows.
import { axis, COLORS, destroy, fitWidth, swatch, uPlot, zonedDate } from './chart-kit.js'
import { INTERVAL_MS, fmtCompact, fmtPrice, fmtTime } from './format.js'

/** candles (+ volume bars underneath) from the data of GET /v1/markets/ohlc */
export function candleChart(el, legendEl, descEl, ohlc) {
  destroy(el)
  legendEl.textContent = ''
  // a candle without a price (null, absent, zero) is not drawn: a gap, never a fall to $0
  const candles = (ohlc.candles ?? []).filter((c) => [c.open, c.high, c.low, c.close].every((v) => Number.isFinite(v) && v > 0))
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
    tzDate: zonedDate,
    cursor: { points: { show: false }, drag: { x: true, y: false } },
    legend: { show: true, live: true },
    scales: {
      x: { time: true, range: (_u, min, max) => [min - step * 0.6, max + step * 0.6] },
      // leave the bottom quarter for the volume bars
      y: { range: () => [lo - span * 0.4, hi + span * 0.06] },
      vol: { range: () => [0, maxVol * 4] },
    },
    axes: [
      // uPlot's own time ticks (they adapt to the zoom), in the shown zone through tzDate
      axis({ space: 60 }),
      axis({ side: 1, size: 72, values: (_u, vals) => vals.map((v) => fmtPrice(v)) }),
    ],
    series: [
      { label: 'Time', value: (_u, v) => (v === null ? '–' : fmtTime(v)) },
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
    `${candles.length} ${ohlc.interval} candles from ${fmtTime(first.ts)} to ${fmtTime(last.ts)}. ` +
    `Opened at ${fmtPrice(first.open)}, closed at ${fmtPrice(last.close)}; high ${fmtPrice(hi)}, low ${fmtPrice(lo)}; total volume ${fmtCompact(totalVol)}.`
}

