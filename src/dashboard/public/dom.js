// Building DOM from data without innerHTML: every string becomes a text node, so nothing in a payload can
// inject markup.

/**
 * h('td', { class: 'num', title: 'x' }, 'text', node) — props: class, dataset, on<event>, boolean and string attributes
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === undefined || v === null || v === false) continue
    if (k === 'class') el.className = v
    else if (k === 'dataset') Object.assign(el.dataset, v)
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v)
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  append(el, children)
  return el
}

function append(el, children) {
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c))
}

/** a paragraph saying there is nothing to show, and why */
export const emptyNote = (text) => h('p', { class: 'empty' }, text)

/**
 * A data table. columns: [{ label, num?, cell(row) → Node|string, title?(row) }]; the first column heads its
 * row (th scope=row) so screen readers name each cell by row and column.
 */
export function dataTable({ caption, captionHidden = false, columns, rows, rowClass, empty = 'Nothing to show.' }) {
  const table = h(
    'table',
    null,
    h('caption', { class: captionHidden ? 'visually-hidden' : null }, caption),
    h('thead', null, h('tr', null, columns.map((c) => h('th', { scope: 'col', class: c.num ? 'num' : null, title: c.hint ?? null }, c.label)))),
  )
  const body = h('tbody')
  for (const row of rows) {
    const tr = h('tr', { class: rowClass?.(row) ?? null })
    columns.forEach((c, i) => {
      const cell = h(i === 0 ? 'th' : 'td', { scope: i === 0 ? 'row' : null, class: c.num ? 'num' : null, title: c.title?.(row) ?? null }, c.cell(row))
      tr.append(cell)
    })
    body.append(tr)
  }
  if (!rows.length) body.append(h('tr', null, h('td', { colspan: columns.length, class: 'empty' }, empty)))
  table.append(body)
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption }, table)
}

/** a definition list of facts: [[term, value], …] */
export function facts(pairs) {
  return h('dl', { class: 'facts' }, pairs.filter(Boolean).map(([dt, dd]) => h('div', null, h('dt', null, dt), h('dd', null, dd))))
}

/** a word with a colour that never carries the meaning alone (the word does) */
export const pill = (text, kind) => h('span', { class: `pill ${kind ?? ''}`.trim() }, text)

/** a number that reads as good/bad by sign: the sign is in the text, the colour only repeats it */
export function signed(text, value) {
  const v = Number(value)
  return h('span', { class: !Number.isFinite(v) || v === 0 || value === null ? null : v > 0 ? 'up' : 'down' }, text)
}

/**
 * Labelled horizontal bars (an ordinary list, so it reads without the picture).
 * items: [{ label, value, text, kind? }]
 */
export function hbars(items, { label } = {}) {
  const max = Math.max(...items.map((i) => Math.abs(Number(i.value) || 0)), 0) || 1
  return h(
    'ul',
    { class: 'hbars', 'aria-label': label ?? null },
    items.map((i) =>
      h(
        'li',
        null,
        h('span', { class: 'name' }, i.label),
        h('span', { class: 'val' }, i.text),
        h('span', { class: 'bar', 'aria-hidden': 'true' }, barFill(i, max)),
      ),
    ),
  )
}

function barFill(item, max) {
  const fill = h('span', { class: item.kind ?? null })
  // CSSOM, not a style attribute: the page's CSP need not allow inline style attributes
  fill.style.width = `${Math.max(Number(item.value) ? 1 : 0, (Math.abs(Number(item.value) || 0) / max) * 100)}%`
  return fill
}
