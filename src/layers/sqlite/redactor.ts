import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { digestValue, MIN_VALUE_LENGTH, redact, redactCapped, valueKey, valueSet, type RedactOptions, type ValueDigest, type ValueKey, type ValueSet } from "../../domain/Redaction.js"
import { Redactor } from "../../services/Redactor.js"
import type { StateStoreError } from "../../services/StateStore.js"
import type { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { sqlFailure, type SqlDriver } from "./driver.js"
import { inList, literal, sql } from "./index/sqlText.js"

/**
 * The Redactor's statements over state.db (migration 0004_redactor_values),
 * the one place they are written: the full CLI runs them on the shared
 * state.db client (RedactorSqlite.ts), the search fast path on its own plain
 * connection (layers/SearchLive.ts) — so both redact a query alike and the
 * fast bundle carries no @effect/sql client.
 */

const KEY_BYTES = 32

/**
 * The redactor key: 32 bytes from the OS random source (never the Clock, so
 * TestClock runs get real keys). Created whole or not at all: written 0600 to
 * a temp file, then hard-linked into place, which fails when another process
 * got there first — then its key is used, so both store matching digests.
 */
const readKey = (file: string, create: boolean): Uint8Array | undefined => {
  try {
    const bytes = fs.readFileSync(file)
    if (bytes.length === KEY_BYTES) return bytes
    if (!create) return undefined
    // A damaged key is replaced: digests made with it can no longer be matched anyway.
    fs.rmSync(file, { force: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
    if (!create) return undefined
  }
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`
  const key = randomBytes(KEY_BYTES)
  fs.writeFileSync(temp, key, { mode: 0o600, flag: "wx" })
  try {
    fs.linkSync(temp, file)
    return key
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    return fs.readFileSync(file)
  } finally {
    fs.rmSync(temp, { force: true })
  }
}

/** The key file of a data dir. */
export const redactorKeyFile = (dataDir: string): string => path.join(dataDir, "redactor.key")

/** The stored key of a data dir, or undefined when none was made yet (nothing stored, nothing to match). */
export const readRedactorKey = (dataDir: string): ValueKey | undefined => {
  const bytes = readKey(redactorKeyFile(dataDir), false)
  return bytes === undefined ? undefined : valueKey(bytes)
}

/** Every stored digest, as `valueSet` takes them. */
export const REDACTOR_DIGESTS = "SELECT DISTINCT hmac, length, tag FROM redactor_values"

/** Redactor over state.db at `filename` (through whichever driver `driver` opens) and `$AKM_DATA_DIR/redactor.key`. */
export const redactorOn = (filename: string, driver: Effect.Effect<SqlDriver, StateStoreError>, workspace: WorkspaceConfig["Type"]): Redactor["Type"] => {
  const keyFile = redactorKeyFile(workspace.paths.dataDir)
  const fail = sqlFailure(filename)
  const unavailable = (reason: unknown) =>
    new WorkspaceUnavailable({ path: keyFile, reason: `cannot read or create the redactor key: ${String(reason)}`, hint: `check the permissions of ${workspace.paths.dataDir}` })
  const write = <A>(f: (db: SqlDriver) => Effect.Effect<A, SqlError>): Effect.Effect<A, StateStoreError> =>
    Effect.flatMap(driver, (db) => Effect.mapError(db.immediate(f), fail))

  let key: ValueKey | undefined
  const keyFor = (create: boolean): Effect.Effect<ValueKey | undefined, WorkspaceUnavailable> =>
    key !== undefined
      ? Effect.succeed(key)
      : Effect.try({ try: () => readKey(keyFile, create), catch: unavailable }).pipe(
        Effect.map((bytes) => (bytes === undefined ? undefined : (key = valueKey(bytes))))
      )

  // Loaded once per process and after every store: search pays one small read, never a bundle file.
  let loaded: RedactOptions | undefined
  const values: Effect.Effect<ValueSet | undefined> = Effect.gen(function* () {
    const k = yield* keyFor(false)
    // No key yet: nothing was ever stored, and state.db is not even opened.
    if (k === undefined) return undefined
    const db = yield* driver
    const rows = yield* db.rows<ValueDigest>(literal(REDACTOR_DIGESTS))
    return valueSet(k, rows)
  }).pipe(Effect.orElseSucceed(() => undefined))
  const allow: Effect.Effect<ReadonlyArray<string>> = workspace.read.pipe(
    Effect.map((config) => config.sensitive?.allow ?? []),
    Effect.orElseSucceed(() => [])
  )
  const load: Effect.Effect<RedactOptions> = Effect.suspend(() =>
    loaded !== undefined
      ? Effect.succeed(loaded)
      : Effect.map(Effect.all([values, allow]), ([v, a]) => (loaded = { values: v, allow: a })))

  return Redactor.of({
    redact: (text) => Effect.map(load, (options) => redact(text, options)),
    redactCapped: (text, max) => Effect.map(load, (options) => redactCapped(text, max, options)),
    snapshot: Effect.map(load, (options) => (text: string) => redact(text, options)),
    snapshotAllowing: (extra) => Effect.map(load, (options) => (text: string) => redact(text, { ...options, allow: [...(options.allow ?? []), ...extra] })),
    storeValues: (source, found) =>
      Effect.gen(function* () {
        const distinct = [...new Set(found)].filter((v) => v.length >= MIN_VALUE_LENGTH)
        const k = distinct.length === 0 ? yield* keyFor(false) : yield* keyFor(true)
        const digests = k === undefined ? [] : distinct.map((v) => digestValue(k, v))
        yield* write((db) =>
          Effect.gen(function* () {
            yield* db.run(sql`DELETE FROM redactor_values WHERE source = ${source}`)
            for (const d of digests) {
              yield* db.run(sql`INSERT OR IGNORE INTO redactor_values (source, hmac, length, tag) VALUES (${source}, ${d.hmac}, ${d.length}, ${d.tag})`)
            }
          }))
        loaded = undefined
        return new Set(digests.map((d) => d.hmac)).size
      }),
    retainSources: (keep) =>
      write((db) => db.run(keep.length === 0 ? literal("DELETE FROM redactor_values") : sql`DELETE FROM redactor_values WHERE source NOT IN ${inList(keep)}`)).pipe(
        Effect.tap(() => Effect.sync(() => (loaded = undefined))),
        Effect.asVoid
      )
  })
}
