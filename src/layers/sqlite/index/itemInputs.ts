import { Effect } from "effect"
import { sliceEnds, yieldIfSpent } from "../../../domain/EventLoopSlice.js"
import type { ItemInputs } from "../../../domain/ItemProjection.js"
import type { SqlDriver } from "../driver.js"
import { sql } from "./sqlText.js"

/** Rows per statement: ≈ 4 ms of SQLite at the bench corpus's 630 bytes of inputs per item. */
const PAGE = 1000

/** The bundle's index-run stamp: every write of its rows stamps a new one (IndexStore.itemInputs keys its cache by it). */
export const bundleStamp = (db: SqlDriver, bundle: string) =>
  Effect.map(db.values(sql`SELECT indexed_at FROM bundles WHERE name = ${bundle}`), (rows) => {
    const stamp = rows[0]?.[0]
    return typeof stamp === "string" ? stamp : undefined
  })

/** One statement for every row: the answer when another writer's rows came in between the pages. */
const allAtOnce = (db: SqlDriver, bundle: string) =>
  Effect.gen(function* () {
    const rows = yield* db.values(sql`SELECT d.ref, j.inputs FROM documents d JOIN document_json j ON j.id = d.id WHERE d.bundle = ${bundle} AND j.inputs IS NOT NULL`)
    const inputs = new Map<string, ItemInputs>()
    for (const [i, row] of rows.entries()) {
      if (sliceEnds(i, 256)) yield* yieldIfSpent
      inputs.set(row[0] as string, JSON.parse(row[1] as string) as ItemInputs)
    }
    return inputs
  })

/**
 * A bundle's stored item inputs by ref (IndexStore.itemInputs), read in pages
 * by concept id along the (bundle, concept_id) index, the event loop turning
 * between them: 5,000 rows in one statement held it for ≈ 20 ms (issue 28
 * item 4, decision 0057). Pages are separate statements, so a writer in
 * another process may commit between them: when the bundle's stamp at the end
 * is not `stamp`, read at the start, every row is read again in one
 * statement, which sees a single run.
 */
export const readItemInputs = (db: SqlDriver, bundle: string, stamp: string | undefined) =>
  Effect.gen(function* () {
    const inputs = new Map<string, ItemInputs>()
    let after = ""
    for (;;) {
      const rows = yield* db.values(sql`SELECT d.concept_id, d.ref, j.inputs FROM documents d JOIN document_json j ON j.id = d.id WHERE d.bundle = ${bundle} AND d.concept_id > ${after} AND j.inputs IS NOT NULL ORDER BY d.concept_id LIMIT ${PAGE}`)
      for (const [i, row] of rows.entries()) {
        if (sliceEnds(i, 256)) yield* yieldIfSpent
        inputs.set(row[1] as string, JSON.parse(row[2] as string) as ItemInputs)
      }
      if (rows.length < PAGE) break
      after = rows[rows.length - 1]![0] as string
      yield* yieldIfSpent
    }
    if (stamp === undefined || (yield* bundleStamp(db, bundle)) !== stamp) return yield* allAtOnce(db, bundle)
    return inputs
  })
