/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** Arbitrary JSON */
  JSON: { input: unknown; output: unknown; }
  /** Unix epoch milliseconds (UTC) */
  Timestamp: { input: number; output: number; }
};

/** The holder of a credit balance */
export type Account = {
  accountId: Scalars['ID']['output'];
  createdAt: Scalars['Timestamp']['output'];
  credits: Scalars['Int']['output'];
  email: Scalars['String']['output'];
};

/** An API key (never its secret) */
export type ApiKey = {
  createdAt: Scalars['Timestamp']['output'];
  id: Scalars['ID']['output'];
  lastUsedAt: Maybe<Scalars['Timestamp']['output']>;
  name: Scalars['String']['output'];
  /** the first characters of the key, for recognising it */
  prefix: Scalars['String']['output'];
  revokedAt: Maybe<Scalars['Timestamp']['output']>;
};

/** A new API key: the secret is shown this once */
export type CreatedApiKey = {
  apiKey: Scalars['String']['output'];
  createdAt: Scalars['Timestamp']['output'];
  id: Scalars['ID']['output'];
  lastUsedAt: Maybe<Scalars['Timestamp']['output']>;
  name: Scalars['String']['output'];
  /** the first characters of the key, for recognising it */
  prefix: Scalars['String']['output'];
  revokedAt: Maybe<Scalars['Timestamp']['output']>;
};

export type DayUsage = {
  calls: Scalars['Int']['output'];
  credits: Scalars['Int']['output'];
  day: Scalars['Timestamp']['output'];
};

export type EndpointUsage = {
  calls: Scalars['Int']['output'];
  credits: Scalars['Int']['output'];
  endpoint: Scalars['String']['output'];
};

/** A supported venue */
export type Exchange = {
  id: Scalars['ID']['output'];
  /** time of the newest market event seen from this exchange */
  lastUpdate: Maybe<Scalars['Timestamp']['output']>;
  name: Scalars['String']['output'];
  status: ExchangeStatus;
  type: ExchangeType;
};

/** Derived from the freshness of the exchange feed (docs/data.md) */
export type ExchangeStatus =
  | 'degraded'
  | 'down'
  | 'operational';

export type ExchangeType =
  | 'CEX'
  | 'DEX';

export type Mutation = {
  createApiKey: CreatedApiKey;
  revokeApiKey: ApiKey;
};


export type MutationCreateApiKeyArgs = {
  name: Scalars['String']['input'];
};


export type MutationRevokeApiKeyArgs = {
  id: Scalars['ID']['input'];
};

export type Query = {
  /** The caller's account and credit balance. Free. */
  account: Account;
  /** The caller's keys (never their secrets). Free. */
  apiKeys: Array<ApiKey>;
  /** All five supported exchanges with their type and feed status. Costs 1 credit (GET /v1/markets/exchanges). */
  exchanges: Array<Exchange>;
  /** Credits spent per endpoint and per day, and the most recent calls. Free. */
  usage: Usage;
};


export type QueryUsageArgs = {
  days?: InputMaybe<Scalars['Int']['input']>;
};

export type RecentCall = {
  credits: Scalars['Int']['output'];
  endpoint: Scalars['String']['output'];
  keyId: Maybe<Scalars['String']['output']>;
  requestId: Maybe<Scalars['String']['output']>;
  ts: Scalars['Timestamp']['output'];
};

export type Usage = {
  byDay: Array<DayUsage>;
  byEndpoint: Array<EndpointUsage>;
  calls: Scalars['Int']['output'];
  days: Scalars['Int']['output'];
  recent: Array<RecentCall>;
  since: Scalars['Timestamp']['output'];
  totalCredits: Scalars['Int']['output'];
};

/** Derived from the freshness of the exchange feed (docs/data.md) */
export type ExchangeStatus =
  | 'degraded'
  | 'down'
  | 'operational';

export type ExchangeType =
  | 'CEX'
  | 'DEX';

export type ExchangesQueryVariables = Exact<{ [key: string]: never; }>;


export type ExchangesQuery = { exchanges: Array<{ id: string, name: string, type: ExchangeType, status: ExchangeStatus, lastUpdate: number | null }> };


export const ExchangesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Exchanges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"exchanges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"lastUpdate"}}]}}]}}]} as unknown as DocumentNode<ExchangesQuery, ExchangesQueryVariables>;