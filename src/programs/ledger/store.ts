import { FileSystem } from "@effect/platform/FileSystem"
import { Effect, Either } from "effect"
import * as path from "node:path"
import { ConfigInvalid } from "../../domain/Errors.js"
import { LEDGER_DIR, parseProjectConfig, parseRecord, defaultProjectConfig, type LedgerProblem, type LedgerRecord, type ProjectConfig } from "../../domain/ledger/index.js"
import { BundleFiles } from "../../services/BundleFiles.js"

/** One record file as read: its text, not yet parsed. */
export interface LedgerFile {
  /** Bundle-relative: `.ai/ledger/<kind>/<id>.md`. */
  readonly path: string
  /** The folder's kind and the file's id. */
  readonly kind: string
  readonly id: string
  readonly text: string
}

/** A record file parsed: the record, or the problem that stops it. */
export type LoadedRecord =
  | { readonly _tag: "Ok"; readonly file: LedgerFile; readonly record: LedgerRecord }
  | { readonly _tag: "Bad"; readonly file: LedgerFile; readonly problem: LedgerProblem }

const isDirectory = (fs: FileSystem, dir: string) => Effect.map(Effect.option(fs.stat(dir)), (info) => info._tag === "Some" && info.value.type === "Directory")

/**
 * Every `.ai/ledger/<kind>/<id>.md` of a project, read through the bundle's
 * containment checks; unreadable files are skipped. `kinds` limits the
 * folders read (the fingerprint lookup reads only `failure/`).
 */
export const readLedgerFiles = (root: string, kinds?: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const files = yield* BundleFiles
    const ledger = path.join(root, LEDGER_DIR)
    if (!(yield* isDirectory(fs, ledger))) return [] as ReadonlyArray<LedgerFile>
    const folders = (yield* Effect.orElseSucceed(fs.readDirectory(ledger), () => [] as Array<string>)).filter((k) => kinds === undefined || kinds.includes(k)).sort()
    const out: Array<LedgerFile> = []
    for (const kind of folders) {
      if (!(yield* isDirectory(fs, path.join(ledger, kind)))) continue
      const names = (yield* Effect.orElseSucceed(fs.readDirectory(path.join(ledger, kind)), () => [] as Array<string>)).filter((n) => n.endsWith(".md")).sort()
      for (const name of names) {
        const relative = `${LEDGER_DIR}/${kind}/${name}`
        const text = yield* Effect.option(files.readText(root, relative))
        if (text._tag === "Some") out.push({ path: relative, kind, id: name.slice(0, -3), text: text.value })
      }
    }
    return out as ReadonlyArray<LedgerFile>
  })

export const parseLedgerFile = (file: LedgerFile): LoadedRecord => {
  const parsed = parseRecord(file.text, { expect: { kind: file.kind, id: file.id } })
  return Either.isRight(parsed) ? { _tag: "Ok", file, record: parsed.right } : { _tag: "Bad", file, problem: parsed.left }
}

/** Every record of the project, parsed. */
export const loadLedger = (root: string, kinds?: ReadonlyArray<string>) => Effect.map(readLedgerFiles(root, kinds), (files) => files.map(parseLedgerFile))

export const CONFIG_FILE = ".ai/config.json"

/** `.ai/config.json` (defaults when absent); a wrong type is a config error naming the key. */
export const readProjectConfig = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const file = path.join(root, CONFIG_FILE)
    const text = yield* Effect.option(fs.readFileString(file))
    if (text._tag === "None") return { config: defaultProjectConfig, warnings: [] as ReadonlyArray<string> } as { readonly config: ProjectConfig; readonly warnings: ReadonlyArray<string> }
    const parsed = parseProjectConfig(text.value)
    if (Either.isLeft(parsed)) {
      return yield* new ConfigInvalid({ file, path: parsed.left.key, reason: parsed.left.reason, hint: "fix the value in .ai/config.json (see docs/formats/project.md)" })
    }
    return parsed.right
  })
