// The dashboard: sign up or sign in with a key, the market views, balance and usage, key management, and
// "try it". Every call is an ordinary public API call with the key in the Authorization header.
import { createAccount } from './account.js'
import { keyStore, problemMessage, request } from './api.js'
import { fmtInt, timeZone, zoneLabel } from './format.js'
import { initPush } from './push.js'
import { initTryIt } from './tryit.js'
import { initViews } from './views-page.js'

const $ = (id) => document.getElementById(id)

const state = {
  /** the key this browser signs in with */
  key: keyStore.get(),
  started: null,
  views: null,
  /** live tickers and alerts (push.js), built once */
  push: null,
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

function signOut(message = 'Signed out. Your key was removed from this browser.', kind = 'info') {
  keyStore.clear()
  state.key = null
  state.views?.reset()
  state.push?.stop()
  account.reset()
  account.hideSecret()
  showSignedOut()
  announce(message, kind)
  $('signup-email').focus()
}

/** a 401 means the stored key no longer works (revoked elsewhere): sign out, saying why */
const onUnauthorized = () => signOut('Your key is no longer accepted (it was revoked or is unknown). Sign in with another key.', 'error')

const account = createAccount({ getKey: () => state.key, announce, onUnauthorized, signOut })

/** a metered call answered: its balance header is the newest balance; usage follows at once after a call the
 * reader made, and at a calmer pace after auto-refresh calls */
function onAnswer({ charged, remaining, automatic = false }) {
  if (remaining !== null && Number.isFinite(remaining)) account.setBalance(remaining)
  if (charged > 0) account.refreshUsage({ soon: automatic })
}

function showZone() {
  $('zone-note').textContent = `Times are shown in ${timeZone()} (${zoneLabel()}).`
}

async function enterApp() {
  showSignedIn()
  if (!(await account.refreshAll())) return
  // the views and "try it" are built once per page; signing in again reuses them
  state.started ??= Promise.all([
    initViews({ getKey: () => state.key, getBalance: account.balance, onAnswer, onUnauthorized, announce }).then((v) => (state.views = v)),
    initTryIt({ getKey: () => state.key, announce, onAnswer }),
  ])
  await state.started
  state.push ??= initPush({ getKey: () => state.key, announce, onUnauthorized, onAnswer })
  await state.push.loadAlerts()
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
  account.showSecret(d.api_key, 'This first key also signs this browser in (it is kept in localStorage until you sign out); copy it to use it in your own code.')
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

$('signout').addEventListener('click', () => signOut())

// a key removed in another tab signs this one out too
window.addEventListener('storage', () => {
  if (state.key && !keyStore.get()) signOut('Signed out in another tab.')
})
window.addEventListener('timezonechange', showZone)
showZone()

if (state.key) void enterApp()
else showSignedOut()
