// The account: balance, usage (credits per day and per endpoint, recent calls) and key management (create
// with a secret shown once, list, revoke). All of it is free: none of these calls costs credits.
import { problemMessage, request } from './api.js'
import { h } from './dom.js'
import { fmtDate, fmtInt, timeEl } from './format.js'
import { endpointBars, usageByDayChart } from './usage-chart.js'

const $ = (id) => document.getElementById(id)

/** usage is reloaded after metered calls, but at most this often (auto-refresh would otherwise reload it every few seconds) */
const USAGE_MIN_GAP_MS = 15_000

/**
 * @param {{ getKey(): string | null, announce(text: string, kind?: string): void, onUnauthorized(): void, signOut(message?: string): void }} ctx
 */
export function createAccount(ctx) {
  let balance = null
  // the last answers, so a change of time zone redraws without calling again
  let lastAccount = null
  let lastKeys = null
  let lastUsage = null
  let usageLoadedAt = 0
  let usageTimer = null
  const unauthorized = (r) => {
    if (r.status !== 401) return false
    ctx.onUnauthorized()
    return true
  }

  function setBalance(credits) {
    balance = Number(credits)
    $('balance').textContent = fmtInt(credits)
    $('account-credits').textContent = fmtInt(credits)
    window.dispatchEvent(new Event('balancechange'))
  }

  async function loadAccount() {
    const r = await request('/v1/account', { key: ctx.getKey() })
    if (unauthorized(r)) return false
    if (!r.ok) {
      ctx.announce(`Could not load the account: ${problemMessage(r)}`, 'error')
      return false
    }
    lastAccount = r.json.data
    drawAccount()
    setBalance(lastAccount.credits)
    return true
  }

  function drawAccount() {
    if (!lastAccount) return
    $('account-email').textContent = lastAccount.email
    $('account-created').textContent = ''
    $('account-created').append(timeEl(lastAccount.created_at, fmtDate))
  }

  function drawUsage() {
    const u = lastUsage
    if (!u) return
    $('usage-summary').textContent = `${fmtInt(u.total_credits)} credits over ${fmtInt(u.calls)} call${u.calls === 1 ? '' : 's'}`
    usageByDayChart($('usage-day-chart'), $('usage-day-desc'), u)
    endpointBars($('usage-endpoints'), u)
    const tbody = $('recent-table').tBodies[0]
    tbody.textContent = ''
    for (const c of u.recent) {
      tbody.append(h('tr', null, h('td', null, timeEl(c.ts)), h('td', { class: 'mono' }, c.endpoint), h('td', { class: 'num' }, fmtInt(c.credits)), h('td', { class: 'mono' }, c.request_id ?? '–')))
    }
    if (!u.recent.length) tbody.append(h('tr', null, h('td', { colspan: 4, class: 'empty' }, 'No charged calls yet.')))
  }

  async function loadUsage() {
    usageLoadedAt = Date.now()
    const r = await request('/v1/account/usage?days=30', { key: ctx.getKey() })
    if (unauthorized(r) || !r.ok) return
    lastUsage = r.json.data
    drawUsage()
  }

  /** after a metered call: reload usage now, or with soon, once the minimum gap has passed (one pending reload at most) */
  function refreshUsage({ soon = false } = {}) {
    if (!soon) {
      clearTimeout(usageTimer)
      usageTimer = null
      return void loadUsage()
    }
    if (usageTimer !== null) return
    const wait = usageLoadedAt + USAGE_MIN_GAP_MS - Date.now()
    if (wait <= 0) return void loadUsage()
    usageTimer = setTimeout(() => {
      usageTimer = null
      if (ctx.getKey()) void loadUsage()
    }, wait)
  }

  async function loadKeys() {
    const key = ctx.getKey()
    const r = await request('/v1/auth/keys', { key })
    if (unauthorized(r)) return
    if (!r.ok) return ctx.announce(`Could not list the keys: ${problemMessage(r)}`, 'error')
    lastKeys = r.json.data
    drawKeys()
  }

  function drawKeys() {
    if (!lastKeys) return
    const key = ctx.getKey()
    const tbody = $('keys-table').tBodies[0]
    tbody.textContent = ''
    for (const k of lastKeys) {
      const isCurrent = !!key && key.startsWith(k.prefix) && !k.revoked_at
      const status = h('td', null, k.revoked_at ? h('span', { class: 'pill revoked' }, 'revoked ', timeEl(k.revoked_at)) : h('span', { class: 'pill active' }, 'active'), isCurrent ? h('span', { class: 'pill current' }, 'this browser') : null)
      const actions = h('td')
      if (!k.revoked_at) {
        const btn = h('button', { type: 'button', class: 'btn btn-small', 'aria-label': `Revoke key ${k.name} (${k.prefix}…)` }, 'Revoke')
        btn.addEventListener('click', () => revoke(k, isCurrent, btn))
        actions.append(btn)
      }
      tbody.append(
        h('tr', { class: k.revoked_at ? 'revoked' : null, dataset: { keyId: k.id } }, h('td', null, k.name), h('td', null, h('code', null, `${k.prefix}…`)), h('td', null, timeEl(k.created_at)), h('td', null, k.last_used_at ? timeEl(k.last_used_at) : 'never'), status, actions),
      )
    }
  }

  function confirmDialog(text, okLabel) {
    const dialog = $('confirm-dialog')
    $('confirm-text').textContent = text
    $('confirm-ok').textContent = okLabel
    dialog.returnValue = ''
    dialog.showModal()
    return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirm'), { once: true }))
  }

  async function revoke(k, isCurrent, button) {
    const warning = isCurrent ? ' This is the key this dashboard is signed in with: you will be signed out.' : ''
    const ok = await confirmDialog(`Revoke "${k.name}" (${k.prefix}…)? Anything using it gets 401 from now on. This cannot be undone.${warning}`, 'Revoke key')
    if (!ok) return button.focus()
    const r = await request(`/v1/auth/keys/${encodeURIComponent(k.id)}`, { method: 'DELETE', key: ctx.getKey() })
    if (unauthorized(r)) return
    if (!r.ok) {
      ctx.announce(`The key was not revoked: ${problemMessage(r)}`, 'error')
      return button.focus()
    }
    if (isCurrent) return ctx.signOut(`Key "${k.name}" revoked. It was this browser's key, so you are signed out.`)
    ctx.announce(`Key "${k.name}" (${k.prefix}…) revoked.`, 'ok')
    await loadKeys()
    $('keys-title').setAttribute('tabindex', '-1')
    $('keys-title').focus()
  }

  // ---------- the one-time secret ----------

  function showSecret(secret, note) {
    $('secret-value').value = secret
    $('secret-note').textContent = ''
    $('secret-note').append(h('strong', null, "Copy it now: you won't see it again."), ` ${note}`)
    $('copy-result').textContent = ''
    $('secret-panel').hidden = false
    $('secret-panel').focus()
  }

  function hideSecret() {
    $('secret-value').value = ''
    $('secret-panel').hidden = true
  }

  async function copySecret() {
    const input = $('secret-value')
    let ok = false
    try {
      await navigator.clipboard.writeText(input.value)
      ok = true
    } catch {
      input.select()
      ok = document.execCommand?.('copy') ?? false
    }
    $('copy-result').textContent = ok ? 'Copied to the clipboard.' : 'Copying failed: the key is selected, press Ctrl+C (⌘C).'
  }

  $('create-key-form').addEventListener('submit', async (ev) => {
    ev.preventDefault()
    const input = $('new-key-name')
    const err = $('new-key-name-error')
    const name = input.value.trim()
    const fail = (message) => {
      input.setAttribute('aria-invalid', 'true')
      err.textContent = message
      input.focus()
    }
    if (!name) return fail('Give the key a name, e.g. trading-bot.')
    input.setAttribute('aria-invalid', 'false')
    err.textContent = ''
    const r = await request('/v1/auth/keys', { method: 'POST', key: ctx.getKey(), body: { name } })
    if (unauthorized(r)) return
    if (!r.ok) return fail(problemMessage(r))
    input.value = ''
    ctx.announce(`Key "${r.json.data.name}" created.`, 'ok')
    showSecret(r.json.data.api_key, 'The service keeps only a hash of it, and this page does not store it.')
    await loadKeys()
  })
  $('copy-secret').addEventListener('click', copySecret)
  $('dismiss-secret').addEventListener('click', () => {
    hideSecret()
    ctx.announce('The key is hidden for good.', 'info')
  })
  window.addEventListener('timezonechange', () => {
    if (!ctx.getKey()) return
    drawAccount()
    drawKeys()
    drawUsage()
  })

  return {
    setBalance,
    balance: () => balance,
    showSecret,
    hideSecret,
    refreshUsage,
    /** account, usage and keys; false when the key is not accepted */
    async refreshAll() {
      if (!(await loadAccount())) return false
      await Promise.all([loadUsage(), loadKeys()])
      return true
    },
    reset() {
      clearTimeout(usageTimer)
      usageTimer = null
      lastUsage = null
      lastAccount = null
      lastKeys = null
      balance = null
    },
  }
}
