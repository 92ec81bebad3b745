import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { clientDriver } from "./clientDriver.js"
import type { SqlReader } from "./driver.js"
import { literal } from "./index/sqlText.js"

/** Applied migrations and a quick integrity check, for init/info/health. */
export const databaseStatusOn = (db: SqlReader, path: string) =>
  Effect.gen(function* () {
    const migrations = yield* db.rows<{ id: number; name: string }>(literal("SELECT migration_id AS id, name FROM akm_migrations ORDER BY migration_id"))
    const check = yield* db.rows<{ quick_check: string }>(literal("PRAGMA quick_check"))
    return {
      path,
      migrations: migrations.map((m) => `${String(m.id).padStart(4, "0")}_${m.name}`),
      integrity: check[0]?.quick_check ?? "unknown"
    }
  })

/** databaseStatusOn through an @effect/sql client (StateStore, LogStore). */
export const databaseStatus = (sql: SqlClient.SqlClient, path: string) => databaseStatusOn(clientDriver(sql), path)
