// CORS for browsers on other origins (the `cors` package): the /v1 GET routes and /graphql answer preflights with
// the Authorization header allowed. The API is authenticated by bearer keys, never by cookies, so credentials
// are never allowed, and CORS_ORIGINS (default *) says which origins may call.
import cors from 'cors'
import type { RequestHandler } from 'express'

/** headers a browser script may read from an answer */
const EXPOSED = ['X-Request-Id', 'X-Credits-Charged', 'X-Credits-Remaining', 'Retry-After', 'RateLimit', 'RateLimit-Policy']
const ALLOWED = ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id']

export function corsFor(origins: readonly string[], methods: readonly string[]): RequestHandler {
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    methods: [...methods],
    allowedHeaders: ALLOWED,
    exposedHeaders: EXPOSED,
    credentials: false,
    maxAge: 600,
    optionsSuccessStatus: 204,
  })
}
