import { HISTORICAL_BELIEFS, lowerType, type ItemFilters } from "../../../domain/Search.js"
import { successorOf } from "./rows.js"
import { and, inList, literal, sql, type SqlText } from "./sqlText.js"

const historicalList = HISTORICAL_BELIEFS.map((b) => `'${b}'`).join(", ")

/**
 * Replaced: a named successor is in the index (by ref, or a project rule by
 * its id) and is current itself or replaced in turn (a chain ends somewhere
 * current). Mirrors the memory layer's `isReplaced`.
 */
const REPLACED = `(d.superseded_by IS NOT NULL AND EXISTS (
  SELECT 1 FROM documents s WHERE s.ref = ${successorOf("d")}
  AND (s.superseded_by IS NOT NULL OR s.belief_state IS NULL OR s.belief_state NOT IN (${historicalList}))))`

/** `--belief historical`: replaced, withdrawn or deprecated items (isPast). */
const PAST = `(d.superseded_by IS NOT NULL OR d.belief_state IN (${historicalList}, 'deprecated') OR d.status = 'deprecated')`

/**
 * The filters of spec 04 §3 step 5 over the documents alias `d`. Applied
 * after the MATCH (in the outer query), never inside it: filters in the MATCH
 * statement can make SQLite abandon the FTS index.
 */
export const filterClause = (filters: ItemFilters): SqlText => {
  const clauses: Array<SqlText> = []
  if (filters.bundles !== undefined) clauses.push(filters.bundles.length === 0 ? literal("0") : sql`d.bundle IN ${inList(filters.bundles)}`)
  // Types match case-insensitively (spec 04 §3): `--type guide` finds OKF's `Guide`.
  if (filters.types !== undefined) clauses.push(filters.types.length === 0 ? literal("0") : sql`lower(d.type) IN ${inList(filters.types.map(lowerType))}`)
  if (filters.adapters !== undefined) clauses.push(filters.adapters.length === 0 ? literal("0") : sql`d.adapter IN ${inList(filters.adapters)}`)
  if (!filters.includeProposed) clauses.push(literal("(d.quality IS NULL OR d.quality <> 'proposed')"))
  for (const [key, value] of Object.entries(filters.scope ?? {})) {
    clauses.push(sql`EXISTS (SELECT 1 FROM json_each(d.scope) j WHERE j.key = ${key} AND j.value = ${value})`)
  }
  // A memory retired by a workspace overlay (R-MEM-5) is out of default retrieval, shown with --belief historical.
  if (filters.belief === "current") clauses.push(literal(`NOT ${REPLACED} AND (d.belief_state IS NULL OR d.belief_state <> 'retired')`))
  else if (filters.belief === "historical") clauses.push(literal(PAST))
  return and(clauses)
}
