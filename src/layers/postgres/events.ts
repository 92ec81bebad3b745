import type * as PgClient from "@effect/sql-pg/PgClient"
import { Effect } from "effect"
import { int8, xactLock, type Int8 } from "./pgRun.js"

/**
 * Appends to the workspace event log inside the caller's transaction. Writers
 * queue on one advisory lock until they commit, so ids become visible in
 * order and a reader paging "after cursor N" never skips an event that
 * another server commits later with a smaller id.
 */
export const insertEvent = (sql: PgClient.PgClient, at: string, kind: string, subject: string, data: string | null) =>
  Effect.zipRight(
    xactLock(sql, "akm.events"),
    Effect.map(sql<{ id: Int8 }>`INSERT INTO events (at, kind, subject, data) VALUES (${at}, ${kind}, ${subject}, ${data}) RETURNING id`, (rows) => int8(rows[0]!.id))
  )
