import { Either } from "effect"
import { sha256Hex } from "./Digest.js"
import { shellQuote } from "./ShellQuote.js"

/**
 * The one marked block akm owns in a crontab (spec 07 §3, docs/decisions/0026):
 * every other byte of the file is left as it was. The block is keyed by the
 * workspace (its data dir), so two workspaces of one user keep two blocks.
 * Removing the last entry removes the block, and the file is byte-identical
 * to before akm first wrote to it.
 */

export interface CrontabEntry {
  readonly alias: string
  readonly ref: string
  readonly digest: string
  readonly schedule: string
  /** The command cron runs (a shell line; `%` already escaped). */
  readonly command: string
}

/** A block akm cannot edit safely: markers missing, doubled or out of order. Nothing is written. */
export interface CrontabCorruption {
  readonly line: number
  readonly message: string
}

/** The block's key: a short digest of the workspace's data dir. */
export const blockId = (dataDir: string): string => sha256Hex(dataDir).slice(0, 12)

const NEWLINE_ADDED = " (akm added the newline before this line)"
const beginLine = (id: string) => `# BEGIN akm tasks ${id} — managed by akm: change it with \`akm task enable|disable\`, not by hand`
const endLine = (id: string) => `# END akm tasks ${id}`

/** The cron line's command: explicit AKM_* dirs and absolute node + akm paths, so cron's bare environment runs this workspace. */
export const entryCommand = (dirs: { readonly configDir: string; readonly dataDir: string; readonly cacheDir: string }, akm: ReadonlyArray<string>, alias: string): Either.Either<string, string> => {
  const words = [...akm, "task", "run", alias, "--scheduled"]
  const all = [dirs.configDir, dirs.dataDir, dirs.cacheDir, ...words]
  if (all.some((word) => /[\n\r]/.test(word))) return Either.left("a path holds a line break, which a crontab line cannot carry")
  const line = [
    `AKM_CONFIG_DIR=${shellQuote(dirs.configDir)}`,
    `AKM_DATA_DIR=${shellQuote(dirs.dataDir)}`,
    `AKM_CACHE_DIR=${shellQuote(dirs.cacheDir)}`,
    ...words.map(shellQuote)
  ].join(" ")
  // In a crontab command an unescaped % ends the command (crontab(5)).
  return Either.right(line.replaceAll("%", "\\%"))
}

interface Located {
  readonly start: number
  /** Just past the END line and its newline. */
  readonly end: number
  readonly newlineAdded: boolean
}

const lineAt = (text: string, index: number): number => text.slice(0, index).split("\n").length

const locate = (text: string, id: string): Either.Either<Located | undefined, CrontabCorruption> => {
  const begins = [...text.matchAll(new RegExp(`^# BEGIN akm tasks ${id}\\b.*$`, "gm"))]
  const ends = [...text.matchAll(new RegExp(`^# END akm tasks ${id}\\b.*$`, "gm"))]
  if (begins.length === 0 && ends.length === 0) return Either.right(undefined)
  if (begins.length > 1) return Either.left({ line: lineAt(text, begins[1]!.index), message: `a second 'BEGIN akm tasks ${id}' marker` })
  if (ends.length > 1) return Either.left({ line: lineAt(text, ends[1]!.index), message: `a second 'END akm tasks ${id}' marker` })
  const begin = begins[0]
  const end = ends[0]
  if (begin === undefined) return Either.left({ line: lineAt(text, end!.index), message: `an 'END akm tasks ${id}' marker without its BEGIN` })
  if (end === undefined) return Either.left({ line: lineAt(text, begin.index), message: `a 'BEGIN akm tasks ${id}' marker without its END` })
  if (end.index < begin.index) return Either.left({ line: lineAt(text, end.index), message: `the 'END akm tasks ${id}' marker comes before its BEGIN` })
  const after = end.index + end[0].length
  return Either.right({ start: begin.index, end: text[after] === "\n" ? after + 1 : after, newlineAdded: begin[0].endsWith(NEWLINE_ADDED) })
}

const render = (id: string, entries: ReadonlyArray<CrontabEntry>, newlineAdded: boolean): string =>
  [
    `${beginLine(id)}${newlineAdded ? NEWLINE_ADDED : ""}`,
    ...entries.flatMap((e) => [`# ${e.alias}: ${e.ref} (digest ${e.digest.slice(0, 12)})`, `${e.schedule} ${e.command}`]),
    endLine(id)
  ].join("\n") + "\n"

/**
 * The crontab text with akm's block holding exactly `entries` (none: no
 * block). An existing block is replaced where it stands; a new one is
 * appended. Bytes outside the block are never changed.
 */
export const withEntries = (text: string, id: string, entries: ReadonlyArray<CrontabEntry>): Either.Either<string, CrontabCorruption> =>
  Either.map(locate(text, id), (found) => {
    if (found !== undefined) {
      let before = text.slice(0, found.start)
      const after = text.slice(found.end)
      if (entries.length > 0) return before + render(id, entries, found.newlineAdded) + after
      if (found.newlineAdded && after === "" && before.endsWith("\n")) before = before.slice(0, -1)
      return before + after
    }
    if (entries.length === 0) return text
    const needsNewline = text !== "" && !text.endsWith("\n")
    return `${text}${needsNewline ? "\n" : ""}${render(id, entries, needsNewline)}`
  })

/** The aliases in akm's block, in order (what `task list` compares with state.db). */
export const blockAliases = (text: string, id: string): Either.Either<ReadonlyArray<string>, CrontabCorruption> =>
  Either.map(locate(text, id), (found) =>
    found === undefined
      ? []
      : [...text.slice(found.start, found.end).matchAll(/^# ([A-Za-z0-9][A-Za-z0-9_.-]*): /gm)].map((m) => m[1]!))
