// One trial per mailbox: the address a signup is compared by. Mail providers deliver these variants to one
// mailbox, so they are one address here: case (the domain is case-insensitive, and every large provider treats
// the local part so too), a "+tag" after the local part (sub-addressing, RFC 5233), and, at Gmail only, dots in
// the local part (Gmail ignores them; googlemail.com is the same service). Dots elsewhere are kept: other
// providers deliver a.b@ and ab@ to different people. The migration 20261124030213_signup_email_normalized
// applies the same rule in SQL to existing accounts.

const GMAIL_DOMAINS = new Set(['gmail.com', 'googlemail.com'])

/** the normalised form of a syntactically valid address (as EmailSchema accepts it) */
export function normalizeEmail(email: string): string {
  const lower = email.trim().toLowerCase()
  const at = lower.lastIndexOf('@')
  let local = lower.slice(0, at)
  let domain = lower.slice(at + 1)
  const plus = local.indexOf('+')
  // a local part that starts with "+" has no tag to drop: it is all there is
  if (plus > 0) local = local.slice(0, plus)
  if (GMAIL_DOMAINS.has(domain)) {
    local = local.replaceAll('.', '')
    domain = 'gmail.com'
  }
  return `${local}@${domain}`
}
