import { randomUUID } from 'node:crypto'
import type { RequestHandler } from 'express'

const VALID = /^[A-Za-z0-9._:-]{8,64}$/

/** every response carries X-Request-Id: the caller's own (when sane) or a new UUID */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.header('x-request-id')
  const id = given && VALID.test(given) ? given : randomUUID()
  res.locals.requestId = id
  res.setHeader('X-Request-Id', id)
  next()
}
