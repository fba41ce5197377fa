// The caller's account, keys, credit ledger and usage. Free (no credits), but every field needs a valid key: the
// only ways in are the root fields below, and each of them authenticates first.
// Account, ApiKey and LedgerEntry are Prisma objects (plugin-prisma): a selection loads the rows and relations it
// asks for in one query.
import { KEY_ORDER, accountGone, createKey, revokeKey, usage, type CreatedKey, type Usage } from '../../accounts/accounts.js'
import { invalidParameter } from '../../errors.js'
import { builder } from '../builder.js'

const LEDGER_DEFAULT = 20
const LEDGER_MAX = 100

builder.prismaObject('Account', {
  description: 'The holder of a credit balance',
  fields: (t) => ({
    accountId: t.exposeID('id'),
    email: t.exposeString('email'),
    credits: t.exposeInt('credits'),
    createdAt: t.field({ type: 'Timestamp', resolve: (a) => a.createdAt }),
    ledger: t.relation('ledger', {
      description: `Credit movements, newest first: charges (negative) and grants (positive). At most \`limit\` (1..${LEDGER_MAX}).`,
      args: { limit: t.arg.int({ defaultValue: LEDGER_DEFAULT }) },
      query: ({ limit }) => {
        if (!Number.isInteger(limit) || limit! < 1 || limit! > LEDGER_MAX) throw invalidParameter('limit', `limit must be an integer from 1 to ${LEDGER_MAX}.`)
        return { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit! }
      },
    }),
  }),
})

builder.prismaObject('CreditLedger', {
  name: 'LedgerEntry',
  description: 'One credit movement of an account',
  fields: (t) => ({
    id: t.id({ resolve: (e) => String(e.id) }),
    delta: t.exposeInt('delta', { description: 'credits added (positive) or charged (negative)' }),
    balanceAfter: t.exposeInt('balanceAfter'),
    kind: t.exposeString('kind', { description: 'charge, signup or purchase' }),
    endpoint: t.exposeString('endpoint', { nullable: true }),
    requestId: t.exposeString('requestId', { nullable: true }),
    keyId: t.exposeID('keyId', { nullable: true }),
    createdAt: t.field({ type: 'Timestamp', resolve: (e) => e.createdAt }),
  }),
})

builder.prismaObject('ApiKey', {
  description: 'An API key (never its secret)',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    prefix: t.exposeString('prefix', { description: 'the first characters of the key, for recognising it' }),
    createdAt: t.field({ type: 'Timestamp', resolve: (k) => k.createdAt }),
    lastUsedAt: t.field({ type: 'Timestamp', nullable: true, resolve: (k) => k.lastUsedAt }),
    revokedAt: t.field({ type: 'Timestamp', nullable: true, resolve: (k) => k.revokedAt }),
  }),
})

const CreatedApiKeyRef = builder.objectRef<CreatedKey>('CreatedApiKey').implement({
  description: 'A new API key: the secret is shown this once',
  fields: (t) => ({
    id: t.id({ resolve: (k) => k.id }),
    name: t.string({ resolve: (k) => k.name }),
    prefix: t.string({ description: 'the first characters of the key, for recognising it', resolve: (k) => k.prefix }),
    createdAt: t.field({ type: 'Timestamp', resolve: (k) => k.createdAt }),
    lastUsedAt: t.field({ type: 'Timestamp', nullable: true, resolve: (k) => k.lastUsedAt }),
    revokedAt: t.field({ type: 'Timestamp', nullable: true, resolve: (k) => k.revokedAt }),
    apiKey: t.exposeString('apiKey'),
  }),
})

const UsageRef = builder.objectRef<Usage>('Usage').implement({
  fields: (t) => ({
    days: t.exposeInt('days'),
    since: t.field({ type: 'Timestamp', resolve: (u) => u.since }),
    totalCredits: t.exposeInt('totalCredits'),
    calls: t.exposeInt('calls'),
    byEndpoint: t.field({
      type: [builder.simpleObject('EndpointUsage', { fields: (f) => ({ endpoint: f.string(), calls: f.int(), credits: f.int() }) })],
      resolve: (u) => u.byEndpoint,
    }),
    byDay: t.field({
      type: [
        builder.objectRef<Usage['byDay'][number]>('DayUsage').implement({
          fields: (f) => ({ day: f.field({ type: 'Timestamp', resolve: (d) => d.day }), calls: f.exposeInt('calls'), credits: f.exposeInt('credits') }),
        }),
      ],
      resolve: (u) => u.byDay,
    }),
    recent: t.field({
      type: [
        builder.objectRef<Usage['recent'][number]>('RecentCall').implement({
          fields: (f) => ({
            ts: f.field({ type: 'Timestamp', resolve: (r) => r.ts }),
            endpoint: f.exposeString('endpoint'),
            credits: f.exposeInt('credits'),
            requestId: f.exposeString('requestId', { nullable: true }),
            keyId: f.exposeString('keyId', { nullable: true }),
          }),
        }),
      ],
      resolve: (u) => u.recent,
    }),
  }),
})

builder.queryFields((t) => ({
  account: t.prismaField({
    type: 'Account',
    description: 'The caller\'s account and credit balance. Free.',
    resolve: async (query, _r, _a, ctx) => {
      const { accountId } = await ctx.requirePrincipal()
      const account = await ctx.services.db.prisma.account.findUnique({ ...query, where: { id: accountId } })
      if (!account) throw accountGone()
      return account
    },
  }),
  apiKeys: t.prismaField({
    type: ['ApiKey'],
    description: 'The caller\'s keys (never their secrets), oldest first. Free.',
    resolve: async (query, _r, _a, ctx) => {
      const { accountId } = await ctx.requirePrincipal()
      return ctx.services.db.prisma.apiKey.findMany({ ...query, where: { accountId }, orderBy: [...KEY_ORDER] })
    },
  }),
  usage: t.field({
    type: UsageRef,
    description: 'Credits spent per endpoint and per day, and the most recent calls. Free.',
    args: { days: t.arg.int({ defaultValue: 30, description: '1..90' }) },
    resolve: async (_r, { days }, ctx) => {
      if (!Number.isInteger(days) || days! < 1 || days! > 90) throw invalidParameter('days', 'days must be an integer from 1 to 90.')
      return usage(ctx.services.db, (await ctx.requirePrincipal()).accountId, days!, new Date(ctx.now))
    },
  }),
}))

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKeyRef,
    args: { name: t.arg.string({ required: true }) },
    resolve: async (_r, { name }, ctx) => createKey(ctx.services.db, (await ctx.requirePrincipal()).accountId, name),
  }),
  revokeApiKey: t.prismaField({
    type: 'ApiKey',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _r, { id }, ctx) => {
      const revoked = await revokeKey(ctx.services.db, (await ctx.requirePrincipal()).accountId, String(id))
      ctx.services.auth.forgetKey(revoked.id)
      return ctx.services.db.prisma.apiKey.findUniqueOrThrow({ ...query, where: { id: revoked.id } })
    },
  }),
}))
