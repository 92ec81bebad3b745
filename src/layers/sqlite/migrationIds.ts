import { literal, type SqlText } from "./index/sqlText.js"

/**
 * The ids of a database's migrations, from their keys ("0001_name" → 1), in
 * order: what openDatabase (Database.ts) compares with the ids a database
 * recorded, and what the search fast path checks a database is migrated to
 * (layers/SearchLive.ts).
 */
export const migrationIds = (migrations: Readonly<Record<string, unknown>>): ReadonlyArray<number> =>
  Object.keys(migrations)
    .map((key) => Number(/^(\d+)_/.exec(key)?.[1] ?? Number.NaN))
    .sort((a, b) => a - b)

/**
 * Whether a database is as openDatabase leaves it: in WAL mode, with exactly
 * the migrations given (else openDatabase would switch, migrate or refuse).
 * `rows` runs a statement outside Effect (driver.ts Connection.rowsSync).
 */
export const migratedTo = (rows: <Row>(statement: SqlText) => ReadonlyArray<Row>, migrations: Readonly<Record<string, unknown>>): boolean => {
  const [mode] = rows<{ journal_mode: string }>(literal("PRAGMA journal_mode"))
  if (mode?.journal_mode !== "wal") return false
  const [table] = rows<{ n: number }>(literal("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'akm_migrations'"))
  if ((table?.n ?? 0) === 0) return false
  const known = migrationIds(migrations)
  const recorded = rows<{ id: number }>(literal("SELECT migration_id AS id FROM akm_migrations ORDER BY migration_id")).map((row) => row.id)
  return recorded.length === known.length && recorded.every((id, i) => id === known[i])
}
