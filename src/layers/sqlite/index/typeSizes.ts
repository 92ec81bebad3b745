import { Effect } from "effect"
import type { TypeSize } from "../../../services/IndexStore.js"
import type { SearchSql } from "./query.js"
import { sql } from "./sqlText.js"

/**
 * IndexStore.typeSizes: count and bytes of one type's items per bundle. No
 * index covers `type`; the scan reads the narrow `documents` rows only, and
 * only `akm health` asks. Items a retirement overlay hides are not counted.
 */
export const typeSizes = (db: SearchSql, type: string) =>
  Effect.map(
    db.rows<TypeSize>(sql`SELECT bundle, count(*) AS items, coalesce(sum(bytes), 0) AS bytes FROM documents WHERE type = ${type} AND (belief_state IS NULL OR belief_state <> 'retired') GROUP BY bundle ORDER BY bundle`),
    (rows) => rows.map((row): TypeSize => ({ bundle: row.bundle, items: row.items, bytes: row.bytes }))
  )
