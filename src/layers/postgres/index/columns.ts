import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import { HISTORICAL_BELIEFS, lowerType, type ItemFilters } from "../../../domain/Search.js"

/**
 * The read side's SQL pieces over `idx_documents d` (the PostgreSQL forms of
 * sqlite/index/rows.ts and filters.ts).
 */

/**
 * The ref a row's `superseded_by` names: the ref itself when an item has it,
 * else the project rule of the same bundle whose id (first hint) it is, else
 * as written (sqlite/index/rows.ts successorOf).
 */
export const successorOf = (d: string): string => `CASE WHEN ${d}.superseded_by IS NULL OR EXISTS (SELECT 1 FROM idx_documents x WHERE x.ref = ${d}.superseded_by)
  THEN ${d}.superseded_by ELSE coalesce((SELECT r.ref FROM idx_documents r WHERE r.bundle = ${d}.bundle AND r.adapter = 'project' AND r.type = 'rule'
    AND (r.hints = substr(${d}.superseded_by, length(${d}.bundle) + 3)
      OR left(r.hints, greatest(0, length(${d}.superseded_by) - length(${d}.bundle) - 1)) = substr(${d}.superseded_by, length(${d}.bundle) + 3) || chr(10))
    ORDER BY r.ref LIMIT 1), ${d}.superseded_by) END`

/** The columns search reads, aliased to ItemRow's names (sqlite/index/rows.ts), so itemFromRow reads them as they are. */
export const ITEM_COLUMNS = `d.ref AS ref, d.bundle AS bundle, d.concept_id AS "conceptId", d.adapter AS adapter, d.type AS type, d.name AS name,
  d.description AS description, d.tags AS tags, d.aliases AS aliases, d.hints AS hints, d.quality AS quality, d.belief_state AS "beliefState",
  ${successorOf("d")} AS "supersededBy", d.status AS status, d.stale_after AS "staleAfter", d.pinned AS pinned, d.path AS path, d.hash AS hash,
  d.bytes AS bytes, t.tokens AS tokens, f.utility AS utility, f.updated_at AS "utilityAt", b.writable AS editable, d.diversity AS diversity,
  b.root AS "bundleRoot"`

export const ITEM_JOINS = "LEFT JOIN idx_token_counts t ON t.hash = d.hash LEFT JOIN idx_ranking_features f ON f.ref = d.ref LEFT JOIN idx_bundles b ON b.name = d.bundle"

const historicalList = HISTORICAL_BELIEFS.map((b) => `'${b}'`).join(", ")

/** Replaced: a named successor is in the index and is current itself or replaced in turn. */
const REPLACED = `(d.superseded_by IS NOT NULL AND EXISTS (
  SELECT 1 FROM idx_documents s WHERE s.ref = ${successorOf("d")}
  AND (s.superseded_by IS NOT NULL OR s.belief_state IS NULL OR s.belief_state NOT IN (${historicalList}))))`

/** `--belief historical`: replaced, withdrawn or deprecated items. */
const PAST = `(d.superseded_by IS NOT NULL OR d.belief_state IN (${historicalList}, 'deprecated') OR d.status = 'deprecated')`

/** The filters of spec 04 §3 step 5 over `d` (sqlite/index/filters.ts). */
export const filterClause = (sql: SqlClient.SqlClient, filters: ItemFilters): Fragment => {
  const clauses: Array<Fragment> = []
  const among = (column: string, values: ReadonlyArray<string> | undefined) => {
    if (values !== undefined) clauses.push(values.length === 0 ? sql.literal("FALSE") : sql`${sql.literal(column)} IN ${sql.in(values)}`)
  }
  among("d.bundle", filters.bundles)
  // Types match case-insensitively (spec 04 §3).
  among("lower(d.type)", filters.types?.map(lowerType))
  among("d.adapter", filters.adapters)
  if (!filters.includeProposed) clauses.push(sql.literal("(d.quality IS NULL OR d.quality <> 'proposed')"))
  for (const [key, value] of Object.entries(filters.scope ?? {})) clauses.push(sql`(d.scope ->> ${key}) = ${String(value)}`)
  // A memory retired by a workspace overlay (R-MEM-5) is out of default retrieval, shown with --belief historical.
  if (filters.belief === "current") clauses.push(sql.literal(`NOT ${REPLACED} AND (d.belief_state IS NULL OR d.belief_state <> 'retired')`))
  else if (filters.belief === "historical") clauses.push(sql.literal(PAST))
  return clauses.length === 0 ? sql.literal("TRUE") : sql.and(clauses)
}

/** Filters that may leave out much of a match (the rest only drop proposed or replaced items, which are few). */
export const narrows = (filters: ItemFilters): boolean =>
  filters.bundles !== undefined || filters.types !== undefined || filters.adapters !== undefined || filters.scope !== undefined || filters.belief === "historical"
