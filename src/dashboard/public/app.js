// The dashboard: sign up or sign in with a key, balance and usage, key management, and "try it".
// Every call is an ordinary public API call with the key in the Authorization header.
import { fmtInt, fmtTime, keyStore, problemMessage, request } from './api.js'
import { endpointBars, usageByDayChart } from './charts.js'
import { initTryIt } from './tryit.js'

const $ = (id) => document.getElementById(id)

const state = {
  /** the key this browser signs in with */
  key: keyStore.get(),
  tryItReady: false,
  lastRevokeButton: null,
}

// ---------- messages ----------

let statusTimer
function announce(text, kind = 'info') {
  const box = $('status')
  clearTimeout(statusTimer)
  box.textContent = ''
  const p = document.createElement('p')
  p.className = `msg ${kind}`
  p.textContent = text
  box.append(p)
  if (kind !== 'error') statusTimer = setTimeout(() => (box.textContent = ''), 12_000)
}

function fieldError(input, message) {
  const err = $(`${input.id}-error`)
  input.setAttribute('aria-invalid', message ? 'true' : 'false')
  if (err) err.textContent = message ?? ''
  if (message) input.focus()
}

// ---------- signed in / out ----------

function showSignedOut() {
  $('auth').hidden = false
  $('app').hidden = true
  $('session').hidden = true
}

function showSignedIn() {
  $('auth').hidden = true
  $('app').hidden = false
  $('session').hidden = false
}

function setBalance(credits) {
  $('balance').textContent = fmtInt(credits)
  $('account-credits').textContent = fmtInt(credits)
}

/** a 401 means the stored key no longer works (revoked elsewhere): sign out, saying why */
function handleUnauthorized(r) {
  if (r.status !== 401) return false
  signOut('Your key is no longer accepted (it was revoked or is unknown). Sign in with another key.', 'error')
  return true
}

function signOut(message = 'Signed out. Your key was removed from this browser.', kind = 'info') {
  keyStore.clear()
  state.key = null
  hideSecret()
  showSignedOut()
  announce(message, kind)
  $('signup-email').focus()
}

async function loadAccount() {
  const r = await request('/v1/account', { key: state.key })
  if (handleUnauthorized(r)) return false
  if (!r.ok) {
    announce(`Could not load the account: ${problemMessage(r)}`, 'error')
    return false
  }
  const a = r.json.data
  $('account-email').textContent = a.email
  $('account-created').textContent = fmtTime(a.created_at).slice(0, 10)
  setBalance(a.credits)
  return true
}

async function loadUsage() {
  const r = await request('/v1/account/usage?days=30', { key: state.key })
  if (handleUnauthorized(r) || !r.ok) return
  const u = r.json.data
  $('usage-summary').textContent = `${fmtInt(u.total_credits)} credits over ${fmtInt(u.calls)} call${u.calls === 1 ? '' : 's'}`
  usageByDayChart($('usage-day-chart'), $('usage-day-desc'), u)
  endpointBars($('usage-endpoints'), u)
  const tbody = $('recent-table').tBodies[0]
  tbody.textContent = ''
  for (const c of u.recent) {
    const tr = tbody.insertRow()
    tr.insertCell().textContent = fmtTime(c.ts)
    const ep = tr.insertCell()
    ep.textContent = c.endpoint
    ep.className = 'mono'
    const cr = tr.insertCell()
    cr.textContent = fmtInt(c.credits)
    cr.className = 'num'
    const rid = tr.insertCell()
    rid.textContent = c.request_id ?? '–'
    rid.className = 'mono'
  }
  if (!u.recent.length) {
    const td = tbody.insertRow().insertCell()
    td.colSpan = 4
    td.className = 'empty'
    td.textContent = 'No charged calls yet.'
  }
}

// ---------- keys ----------

async function loadKeys() {
  const r = await request('/v1/auth/keys', { key: state.key })
  if (handleUnauthorized(r)) return
  if (!r.ok) {
    announce(`Could not list the keys: ${problemMessage(r)}`, 'error')
    return
  }
  const tbody = $('keys-table').tBodies[0]
  tbody.textContent = ''
  for (const k of r.json.data) {
    const tr = tbody.insertRow()
    tr.dataset.keyId = k.id
    if (k.revoked_at) tr.className = 'revoked'
    const isCurrent = !!state.key && state.key.startsWith(k.prefix) && !k.revoked_at
    tr.insertCell().textContent = k.name
    const prefix = tr.insertCell()
    const code = document.createElement('code')
    code.textContent = `${k.prefix}…`
    prefix.append(code)
    tr.insertCell().textContent = fmtTime(k.created_at)
    tr.insertCell().textContent = k.last_used_at ? fmtTime(k.last_used_at) : 'never'
    const status = tr.insertCell()
    const pill = document.createElement('span')
    pill.className = `pill ${k.revoked_at ? 'revoked' : 'active'}`
    pill.textContent = k.revoked_at ? `revoked ${fmtTime(k.revoked_at)}` : 'active'
    status.append(pill)
    if (isCurrent) {
      const cur = document.createElement('span')
      cur.className = 'pill current'
      cur.textContent = 'this browser'
      status.append(cur)
    }
    const actions = tr.insertCell()
    if (!k.revoked_at) {
      const btn = document.createElement('button')
      btn.type = 'button'
      btn.className = 'btn btn-small'
      btn.textContent = 'Revoke'
      btn.setAttribute('aria-label', `Revoke key ${k.name} (${k.prefix}…)`)
      btn.addEventListener('click', () => revoke(k, isCurrent, btn))
      actions.append(btn)
    }
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
  if (!ok) {
    button.focus()
    return
  }
  const r = await request(`/v1/auth/keys/${encodeURIComponent(k.id)}`, { method: 'DELETE', key: state.key })
  if (handleUnauthorized(r)) return
  if (!r.ok) {
    announce(`The key was not revoked: ${problemMessage(r)}`, 'error')
    button.focus()
    return
  }
  if (isCurrent) return signOut(`Key "${k.name}" revoked. It was this browser's key, so you are signed out.`)
  announce(`Key "${k.name}" (${k.prefix}…) revoked.`, 'ok')
  await loadKeys()
  $('keys-title').setAttribute('tabindex', '-1')
  $('keys-title').focus()
}

// ---------- the one-time secret ----------

function showSecret(secret, note) {
  $('secret-value').value = secret
  $('secret-note').innerHTML = ''
  const strong = document.createElement('strong')
  strong.textContent = "Copy it now: you won't see it again."
  $('secret-note').append(strong, document.createTextNode(` ${note}`))
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

// ---------- refresh ----------

async function refreshAll() {
  if (!(await loadAccount())) return false
  await Promise.all([loadUsage(), loadKeys()])
  return true
}

async function enterApp() {
  showSignedIn()
  if (!(await refreshAll())) return
  if (!state.tryItReady) {
    state.tryItReady = true
    await initTryIt({
      getKey: () => state.key,
      announce,
      onResult: async ({ remaining }) => {
        if (remaining !== null && Number.isFinite(remaining)) setBalance(remaining)
        await refreshAll()
      },
    })
  }
}

// ---------- wiring ----------

$('signup-form').addEventListener('submit', async (ev) => {
  ev.preventDefault()
  const input = $('signup-email')
  const email = input.value.trim()
  if (!email || !input.checkValidity()) return fieldError(input, 'Enter a valid email address, e.g. you@example.com.')
  fieldError(input, null)
  const button = ev.submitter ?? ev.target.querySelector('button')
  button.disabled = true
  const r = await request('/v1/auth/signup', { method: 'POST', body: { email } })
  button.disabled = false
  if (r.status === 409) return fieldError(input, 'An account with this email already exists. Paste one of its keys instead.')
  if (!r.ok) return fieldError(input, problemMessage(r))
  const d = r.json.data
  state.key = d.api_key
  keyStore.set(d.api_key)
  input.value = ''
  announce(`Account created with ${fmtInt(d.credits)} trial credits. You are signed in.`, 'ok')
  await enterApp()
  showSecret(d.api_key, 'This first key also signs this browser in (it is kept in localStorage until you sign out); copy it to use it in your own code.')
})

$('key-form').addEventListener('submit', async (ev) => {
  ev.preventDefault()
  const input = $('key-input')
  const key = input.value.trim()
  if (!/^pa_\S+$/.test(key)) return fieldError(input, 'That does not look like an API key: keys start with pa_.')
  const r = await request('/v1/account', { key })
  if (r.status === 401) return fieldError(input, 'This key was not accepted: it is unknown or revoked.')
  if (!r.ok) return fieldError(input, problemMessage(r))
  fieldError(input, null)
  input.value = ''
  state.key = key
  keyStore.set(key)
  announce('Signed in. The key is kept in this browser until you sign out.', 'ok')
  await enterApp()
  $('account-title').setAttribute('tabindex', '-1')
  $('account-title').focus()
})

$('create-key-form').addEventListener('submit', async (ev) => {
  ev.preventDefault()
  const input = $('new-key-name')
  const name = input.value.trim()
  if (!name) return fieldError(input, 'Give the key a name, e.g. trading-bot.')
  fieldError(input, null)
  const r = await request('/v1/auth/keys', { method: 'POST', key: state.key, body: { name } })
  if (handleUnauthorized(r)) return
  if (!r.ok) return fieldError(input, problemMessage(r))
  input.value = ''
  announce(`Key "${r.json.data.name}" created.`, 'ok')
  showSecret(r.json.data.api_key, 'The service keeps only a hash of it, and this page does not store it.')
  await loadKeys()
})

$('copy-secret').addEventListener('click', copySecret)
$('dismiss-secret').addEventListener('click', () => {
  hideSecret()
  announce('The key is hidden for good.', 'info')
})
$('signout').addEventListener('click', () => signOut())

// a key removed in another tab signs this one out too
window.addEventListener('storage', () => {
  if (state.key && !keyStore.get()) signOut('Signed out in another tab.')
})

if (state.key) void enterApp()
else showSignedOut()
