import Database from "better-sqlite3"
import { Clock, Effect } from "effect"
import { existsSync, renameSync } from "node:fs"
import { basename } from "node:path"
import { WorkspaceUnavailable } from "../../domain/Errors.js"

/**
 * What happens when SQLite says a file is not (or no longer) a database.
 * index.db is disposable: it is moved aside and rebuilt. state.db and logs.db
 * are never rebuilt or deleted behind a user's back: every command names the
 * file, what would be lost and how to restore it (R-DB-1, spec 01 §4).
 */

const DAMAGE_CODE = /^SQLITE_(CORRUPT|NOTADB)/

/** Whether SQLite refused the file itself (SQLITE_CORRUPT*, SQLITE_NOTADB), looking through wrapped causes. */
export const isDamage = (cause: unknown): boolean => {
  let current: unknown = cause
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { readonly code?: unknown }).code
    if (typeof code === "string" && DAMAGE_CODE.test(code)) return true
    current = (current as { readonly cause?: unknown }).cause
  }
  return false
}

const LOSSES: Record<string, string> = {
  "state.db": "learned utility, feedback, usage events, proposals with their changes and outcomes, and workspace events",
  "logs.db": "the run, task and workflow log lines"
}

const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)

const causeText = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/** The error every command gives for a damaged state.db or logs.db: the file, what it holds, how to restore it. */
export const damagedDatabase = (filename: string, cause: unknown): WorkspaceUnavailable => {
  const name = basename(filename)
  const loses = LOSSES[name] ?? "what akm keeps in it"
  const recovered = `${filename}.recovered`
  const purgeable = name === "logs.db" ? `; logs are purgeable, so moving ${name} aside also lets akm start an empty one` : ""
  return new WorkspaceUnavailable({
    path: filename,
    reason: `the database is damaged (${causeText(cause)}); it holds ${loses}, which rebuilding it would lose, so akm leaves it as it is`,
    hint: `stop akm, then restore ${name} from a backup copy, or recover what SQLite can still read: ` +
      `\`sqlite3 ${shellWord(filename)} .recover | sqlite3 ${shellWord(recovered)}\`, move ${name} aside and rename ${basename(recovered)} to ${name}${purgeable}`,
    damaged: { loses }
  })
}

/** The SQLite failure as the user sees it: damage named as such, anything else through `otherwise`. */
export const classify = (filename: string, otherwise: (cause: unknown) => WorkspaceUnavailable) => (cause: unknown): WorkspaceUnavailable =>
  isDamage(cause) ? damagedDatabase(filename, cause) : otherwise(cause)

/**
 * Whether the file is still unreadable as a database. Another akm process may
 * have moved it aside and started a fresh one since this one failed to open it;
 * that fresh file must not be moved aside in turn.
 */
const stillDamaged = (filename: string): boolean => {
  let db: Database.Database | undefined
  try {
    db = new Database(filename, { fileMustExist: true })
    const tables = db.prepare("SELECT name FROM sqlite_master").all() as ReadonlyArray<{ name: string }>
    if (tables.some((table) => table.name === "akm_migrations")) db.prepare("SELECT * FROM akm_migrations").all()
    return false
  } catch (error) {
    return isDamage(error)
  } finally {
    db?.close()
  }
}

const stamp = (epochMs: number) => new Date(epochMs).toISOString().replace(/[:.]/g, "-")

/** Renames the file and its -wal/-shm to `<file>.corrupt-<time>`; undefined when the file is already gone. Throws what rename throws. */
const renameAside = (filename: string, epochMs: number): string | undefined => {
  if (!existsSync(filename)) return undefined
  const target = `${filename}.corrupt-${stamp(epochMs)}`
  renameSync(filename, target)
  for (const suffix of ["-wal", "-shm"]) if (existsSync(`${filename}${suffix}`)) renameSync(`${filename}${suffix}`, `${target}${suffix}`)
  return target
}

const notMoved = (filename: string, cause: unknown) =>
  new WorkspaceUnavailable({ path: filename, reason: `damaged, and it could not be moved aside: ${causeText(cause)}`, hint: `delete ${filename} (it is rebuilt from the bundles) and run the command again` })

/**
 * Moves a damaged disposable database (and its -wal/-shm) to
 * `<file>.corrupt-<time>`, the time from Clock; returns where it went, or
 * undefined when there was nothing left to move (another process did it).
 */
export const moveAside = (filename: string, options: { readonly probe: boolean }) =>
  Effect.gen(function* () {
    if (options.probe && !stillDamaged(filename)) return undefined
    const now = yield* Clock.currentTimeMillis
    return yield* Effect.try({ try: () => renameAside(filename, now), catch: (cause) => notMoved(filename, cause) })
  })

/**
 * Disposable databases opened in this process, with the Clock of the layer
 * that opened them: a statement that finds one damaged after it opened fine
 * (a malformed page deep in the file) moves it aside there and then, so the
 * next command starts afresh (see sqlFailure).
 */
const disposables = new Map<string, Clock.Clock>()

export const registerDisposable = (filename: string, clock: Clock.Clock): void => {
  if (filename !== ":memory:") disposables.set(filename, clock)
}

/** For a registered disposable db whose statement failed with damage: moves it aside and says so; else undefined. */
export const healAfterFailure = (filename: string, cause: unknown): WorkspaceUnavailable | undefined => {
  const clock = disposables.get(filename)
  if (clock === undefined || !isDamage(cause)) return undefined
  try {
    const movedTo = renameAside(filename, clock.unsafeCurrentTimeMillis())
    return new WorkspaceUnavailable({
      path: filename,
      reason: `the index is damaged (${causeText((cause as { readonly cause?: unknown }).cause ?? cause)})${movedTo === undefined ? "" : `; moved it to ${movedTo}`}`,
      hint: "run the command again: the index is rebuilt from the bundles, and what akm learned (state.db) is kept"
    })
  } catch (error) {
    return notMoved(filename, error)
  }
}
