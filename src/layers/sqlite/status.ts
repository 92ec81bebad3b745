import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/** Applied migrations and a quick integrity check, for init/info/health. */
export const databaseStatus = (sql: SqlClient.SqlClient, path: string) =>
  Effect.gen(function* () {
    const migrations = yield* sql<{ id: number; name: string }>`SELECT migration_id AS id, name FROM akm_migrations ORDER BY migration_id`
    const check = yield* sql<{ quick_check: string }>`PRAGMA quick_check`
    return {
      path,
      migrations: migrations.map((m) => `${String(m.id).padStart(4, "0")}_${m.name}`),
      integrity: check[0]?.quick_check ?? "unknown"
    }
  })
