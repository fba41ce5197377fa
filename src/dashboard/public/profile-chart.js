// The volume profile as a horizontal histogram on a canvas: price on the vertical axis, volume per level
// as bar length, HVN and LVN coloured apart, the point of control and the value area marked.
import { COLORS, destroy, fitWidth, swatch } from './chart-kit.js'
import { fmtCompact, fmtPrice } from './format.js'

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
