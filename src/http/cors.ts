// CORS for browsers on other origins (the `cors` package): the /v1 GET routes and /graphql answer preflights with
// the Authorization header allowed. The API is authenticated by bearer keys, never by cookies, so credentials
// are never allowed, and CORS_ORIGINS (default *) says which origins may call.
import cors from 'cors'
import type { RequestHandler } from 'express'

/** headers a browser script may read from an answer */
const EXPOSED = ['X-Request-Id', 'X-Credits-Charged', 'X-Credits-Remaining', 'Retry-After', 'RateLimit', 'RateLimit-Policy']
const ALLOWED = ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id']

function corsFor(origins: readonly string[], methods: readonly string[]): RequestHandler {
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

/** one middleware for every CORS path: a set lookup per request instead of a router layer per path */
export function corsByPath(origins: readonly string[], getPaths: readonly string[], graphqlPath: string): RequestHandler {
  const get = corsFor(origins, ['GET', 'HEAD'])
  const graphql = corsFor(origins, ['GET', 'POST'])
  const paths = new Set(getPaths.map((p) => p.toLowerCase()))
  return (req, res, next) => {
    const path = (req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path).toLowerCase()
    if (paths.has(path)) return get(req, res, next)
    if (path === graphqlPath) return graphql(req, res, next)
    next()
  }
}
