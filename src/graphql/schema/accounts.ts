// The caller's account, keys and usage. Free (no credits), but every field needs a valid key.
import { createKey, getAccount, listKeys, revokeKey, usage, type CreatedKey, type KeyInfo, type Usage } from '../../accounts/accounts.js'
import { invalidParameter } from '../../errors.js'
import { builder } from '../builder.js'

const AccountRef = builder.objectRef<Awaited<ReturnType<typeof getAccount>>>('Account').implement({
  description: 'The holder of a credit balance',
  fields: (t) => ({
    accountId: t.exposeID('accountId'),
    email: t.exposeString('email'),
    credits: t.exposeInt('credits'),
    createdAt: t.field({ type: 'Timestamp', resolve: (a) => a.createdAt }),
  }),
})

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never
const keyFields = <K extends KeyInfo>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, K>) => ({
  id: t.id({ resolve: (k) => k.id }),
  name: t.string({ resolve: (k) => k.name }),
  prefix: t.string({ description: 'the first characters of the key, for recognising it', resolve: (k) => k.prefix }),
  createdAt: t.field({ type: 'Timestamp', resolve: (k) => k.createdAt }),
  lastUsedAt: t.field({ type: 'Timestamp', nullable: true, resolve: (k) => k.lastUsedAt }),
  revokedAt: t.field({ type: 'Timestamp', nullable: true, resolve: (k) => k.revokedAt }),
})

const ApiKeyRef = builder.objectRef<KeyInfo>('ApiKey').implement({ description: 'An API key (never its secret)', fields: keyFields })

const CreatedApiKeyRef = builder.objectRef<CreatedKey>('CreatedApiKey').implement({
  description: 'A new API key: the secret is shown this once',
  fields: (t) => ({ ...keyFields(t), apiKey: t.exposeString('apiKey') }),
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
  account: t.field({
    type: AccountRef,
    description: 'The caller\'s account and credit balance. Free.',
    resolve: async (_r, _a, ctx) => getAccount(ctx.services.db, (await ctx.requirePrincipal()).accountId),
  }),
  apiKeys: t.field({
    type: [ApiKeyRef],
    description: 'The caller\'s keys (never their secrets). Free.',
    resolve: async (_r, _a, ctx) => listKeys(ctx.services.db, (await ctx.requirePrincipal()).accountId),
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
  revokeApiKey: t.field({
    type: ApiKeyRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, { id }, ctx) => {
      const revoked = await revokeKey(ctx.services.db, (await ctx.requirePrincipal()).accountId, String(id))
      ctx.services.auth.forgetKey(revoked.id)
      return revoked
    },
  }),
}))
