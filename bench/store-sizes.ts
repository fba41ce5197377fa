// Bytes per relation of the service's tables: heap (main fork), TOAST, each index, total.
import type { Sql } from '../src/store/database.js'

export interface RelationSize {
  relation: string
  rows: number
  heapMB: number
  toastMB: number
  indexesMB: number
  totalMB: number
  bytesPerRow: number
  indexes: string
}

const MB = 1024 * 1024

export async function storeSizes(sql: Pick<Sql, 'query'>): Promise<RelationSize[]> {
  const rels = await sql.query<{ relname: string; heap: string; toast: string; idx: string; total: string; indexes: string | null }>(`
    SELECT c.relname,
      pg_relation_size(c.oid)::text AS heap,
      COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0)::text AS toast,
      pg_indexes_size(c.oid)::text AS idx,
      pg_total_relation_size(c.oid)::text AS total,
      (SELECT string_agg(i.relname || ' ' || round(pg_relation_size(i.oid) / 1048576.0, 1) || ' MB', ', ' ORDER BY pg_relation_size(i.oid) DESC)
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = c.oid) AS indexes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind = 'r' AND n.nspname = current_schema()
    ORDER BY pg_total_relation_size(c.oid) DESC`)
  const out: RelationSize[] = []
  for (const r of rels) {
    const [{ n }] = await sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${r.relname}"`) as [{ n: string }]
    const total = Number(r.total)
    out.push({
      relation: r.relname,
      rows: Number(n),
      heapMB: +(Number(r.heap) / MB).toFixed(1),
      toastMB: +(Number(r.toast) / MB).toFixed(1),
      indexesMB: +(Number(r.idx) / MB).toFixed(1),
      totalMB: +(total / MB).toFixed(1),
      bytesPerRow: Number(n) ? Math.round(total / Number(n)) : 0,
      indexes: r.indexes ?? '',
    })
  }
  return out
}
