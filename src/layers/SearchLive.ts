import Database from "better-sqlite3"
import { Clock, Effect, Layer } from "effect"
import type { PathOverrides } from "../domain/Paths.js"
import { IndexStore } from "../services/IndexStore.js"
import { UsageLog } from "../services/UsageLog.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { makeWorkspaceConfig, resolveWorkspacePaths } from "./fs/WorkspaceConfigFile.js"
import { betterSqliteAddon } from "./sqlite/addon.js"
import type { Migrations } from "./sqlite/Database.js"
import { listBundles } from "./sqlite/index/bundles.js"
import { browse, candidates, itemsByRef, lastIndexed } from "./sqlite/index/query.js"
import { openIndexReader, type IndexReader } from "./sqlite/index/reader.js"
import { literal } from "./sqlite/index/sqlText.js"
import { indexMigrations, stateMigrations } from "./sqlite/migrations.js"

/**
 * The services `akm search` uses on its start-up fast path (src/cli/fast/search.ts,
 * docs/decisions/0002-start-up.md), read straight from index.db and state.db
 * with better-sqlite3: no @effect/sql client, no migrator, no other service.
 * It serves only a workspace in its everyday state — both databases migrated
 * to this akm, index.db built once — and says so by returning undefined;
 * anything else (a first run, a newer database, an upgrade to migrate) is the
 * full CLI's, which builds, migrates or refuses as it always does. Every
 * failure of these services is a defect for the same reason: the fast path
 * then hands the command to the full CLI, which reports it.
 */
export interface SearchLive {
  readonly layer: Layer.Layer<IndexStore | UsageLog | WorkspaceConfig>
  readonly close: () => void
}

/** UsageLogSqlite's recordSearch statement; test/cli/search-fastpath.test.ts compares the rows both write. */
const USAGE_INSERT = "INSERT INTO usage_events (at, kind, query, refs, source) VALUES (?, 'search', ?, ?, ?)"

/**
 * Whether the database is as openDatabase leaves it: in WAL mode, with
 * exactly the migrations this akm knows (else it would switch, migrate or refuse).
 */
const migrated = (rows: IndexReader["rows"], migrations: Migrations): boolean => {
  const [mode] = rows<{ journal_mode: string }>(literal("PRAGMA journal_mode"))
  if (mode?.journal_mode !== "wal") return false
  const known = Object.keys(migrations).map((key) => Number(/^(\d+)_/.exec(key)?.[1] ?? Number.NaN)).sort((a, b) => a - b)
  const [table] = rows<{ n: number }>(literal("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'akm_migrations'"))
  if ((table?.n ?? 0) === 0) return false
  const recorded = rows<{ id: number }>(literal("SELECT migration_id AS id FROM akm_migrations ORDER BY migration_id")).map((row) => row.id)
  return recorded.length === known.length && recorded.every((id, i) => id === known[i])
}

/** Answers what searchIndexed asks; any other member is a defect (see above). */
const only = <S extends object>(name: string, members: Partial<S>): S =>
  new Proxy(members, {
    get: (target, key) =>
      key in target || typeof key === "symbol" ? target[key as keyof typeof target] : Effect.dieMessage(`${name}.${key} is not available on the search fast path`)
  }) as S

/** The index as search reads it; undefined unless index.db exists, is migrated and was built at least once. */
const openIndex = (filename: string, options: Database.Options): { readonly reader: IndexReader; readonly store: IndexStore["Type"] } | undefined => {
  let reader: IndexReader | undefined
  try {
    reader = openIndexReader(filename, options)
    if (!migrated(reader.rows, indexMigrations) || Effect.runSync(Effect.orDie(lastIndexed(reader.sql))) === undefined) {
      reader.close()
      return undefined
    }
  } catch {
    reader?.close()
    return undefined
  }
  const sql = reader.sql
  const store = only<IndexStore["Type"]>("IndexStore", {
    lastIndexed: Effect.orDie(lastIndexed(sql)),
    bundles: Effect.orDie(listBundles(sql)),
    candidates: (query) => Effect.orDie(candidates(sql, query)),
    browse: (query) => Effect.orDie(browse(sql, query)),
    items: (refs, filters) => Effect.orDie(itemsByRef(sql, refs, filters))
  })
  return { reader, store }
}

/** Records searches in state.db as UsageLogSqlite does (one row, BEGIN IMMEDIATE); undefined unless state.db is migrated. */
const openUsage = (filename: string, options: Database.Options): { readonly close: () => void; readonly log: UsageLog["Type"] } | undefined => {
  let db: Database.Database | undefined
  try {
    db = new Database(filename, { ...options, fileMustExist: true })
    db.pragma("busy_timeout = 5000")
    db.pragma("foreign_keys = ON")
    db.pragma("synchronous = NORMAL")
    const connection = db
    if (!migrated(({ text, params }) => connection.prepare(text).all(...params) as never, stateMigrations)) {
      db.close()
      return undefined
    }
    const insert = db.prepare(USAGE_INSERT)
    const log = only<UsageLog["Type"]>("UsageLog", {
      recordSearch: (query, refs, source) =>
        Effect.flatMap(Clock.currentTimeMillis, (millis) =>
          Effect.sync(() => {
            connection.exec("BEGIN IMMEDIATE")
            try {
              insert.run(new Date(millis).toISOString(), query, JSON.stringify(refs), source)
              connection.exec("COMMIT")
            } catch (error) {
              if (connection.inTransaction) connection.exec("ROLLBACK")
              throw error
            }
          }))
    })
    return { close: () => connection.close(), log }
  } catch {
    db?.close()
    return undefined
  }
}

/**
 * Opens what a search needs, or returns undefined when the workspace is not
 * in the state this path serves. `track` false (`--no-track`) leaves state.db closed.
 */
export const openSearchLive = (overrides: PathOverrides, track: boolean): SearchLive | undefined => {
  const paths = resolveWorkspacePaths(overrides)
  const addon = betterSqliteAddon()
  const options: Database.Options = addon === undefined ? {} : { nativeBinding: addon }
  const index = openIndex(paths.indexDb, options)
  if (index === undefined) return undefined
  const usage = track ? openUsage(paths.stateDb, options) : undefined
  if (track && usage === undefined) {
    index.reader.close()
    return undefined
  }
  const layer = Layer.mergeAll(
    Layer.succeed(IndexStore, index.store),
    Layer.succeed(UsageLog, usage?.log ?? only<UsageLog["Type"]>("UsageLog", {})),
    Layer.succeed(WorkspaceConfig, makeWorkspaceConfig(paths))
  )
  return {
    layer,
    close: () => {
      usage?.close()
      index.reader.close()
    }
  }
}
