// The stable codes of every problem a caller can meet (REST problem+json `code`, GraphQL `extensions.code`).
import { z } from 'zod'

export const PROBLEM_CODES = [
  'invalid_parameter',
  'invalid_request',
  'unauthorized',
  'insufficient_credits',
  'not_found',
  'method_not_allowed',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'unavailable',
  'internal',
] as const
export const ProblemCode = z.enum(PROBLEM_CODES)
export type ProblemCode = z.infer<typeof ProblemCode>
