/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
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