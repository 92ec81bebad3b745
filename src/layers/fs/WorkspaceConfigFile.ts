import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { isDeepStrictEqual } from "node:util"
import { Effect, Either, Layer, ParseResult, Schema } from "effect"
import { isMap, isScalar, LineCounter, parseDocument, type Document } from "yaml"
import { AkmConfig, configProblems } from "../../domain/Config.js"
import { ConfigInvalid, WorkspaceUnavailable } from "../../domain/Errors.js"
import { emptyLock, LockFile } from "../../domain/Lock.js"
import { expandUserPath, workspacePaths, type PathOverrides, type WorkspacePaths } from "../../domain/Paths.js"
import { validateBundleName } from "../../domain/Ref.js"
import { WorkspaceConfig, type ConfigEditor, type ConfigPath } from "../../services/WorkspaceConfig.js"
import { atomicWriteFileSync } from "./atomicWrite.js"
import { workspaceLease } from "../sqlite/leaseEvents.js"
import { withLease } from "./transaction/Lease.js"

const CONFIG_HEADER = "# akm desired configuration — see docs/configuration.md\n"

const fixHint = (file: string) => `edit ${file} (or run \`akm config set <key> <value>\`) and try again`

/** Reports the line of a key path in the YAML source (the key's own line, where a block value starts below it), when it can be found. */
const lineOf = (doc: Document, counter: LineCounter, keyPath: ReadonlyArray<string | number>): number | undefined => {
  for (let depth = keyPath.length; depth > 0; depth--) {
    const parent = depth === 1 ? doc.contents : doc.getIn(keyPath.slice(0, depth - 1), true)
    const key = isMap(parent) ? parent.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === String(keyPath[depth - 1]))?.key : undefined
    const node = (key ?? doc.getIn(keyPath.slice(0, depth), true)) as { range?: [number, number, number] } | undefined
    if (node !== undefined && node !== null && typeof node === "object" && node.range !== undefined) {
      return counter.linePos(node.range[0]).line
    }
  }
  return undefined
}

/** A key the schema refuses: under `bundles` it is a bundle name breaking the naming rule, elsewhere most likely a typo. */
const unexpectedKeyReason = (keyPath: ReadonlyArray<string | number>): string => {
  const name = keyPath.length === 2 && keyPath[0] === "bundles" ? validateBundleName(String(keyPath[1])) : undefined
  return name !== undefined && Either.isLeft(name) ? `invalid bundle name: ${name.left.reason} (${name.left.hint})` : "unknown key (check its spelling)"
}

const decodeConfig = Schema.decodeUnknownEither(AkmConfig, { onExcessProperty: "error", errors: "all" })

/** Parses and validates config text; every failure names the file, key path, line and reason (R-WS-4). */
export const parseConfigText = (file: string, text: string): Either.Either<{ config: AkmConfig; doc: Document }, ConfigInvalid> => {
  const counter = new LineCounter()
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: true, uniqueKeys: true })
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!
    const line = first.linePos?.[0]?.line
    return Either.left(new ConfigInvalid({
      file,
      path: line === undefined ? "" : `line ${line}`,
      reason: `invalid YAML: ${first.message.split("\n")[0]}`,
      hint: fixHint(file)
    }))
  }
  const raw: unknown = doc.toJS() ?? {}
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return Either.left(new ConfigInvalid({ file, path: "", reason: "the top level must be a mapping of keys to values", hint: fixHint(file) }))
  }
  const decoded = decodeConfig(raw)
  if (Either.isLeft(decoded)) {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
    const keyPath = (issue?.path ?? []).map((p) => (typeof p === "symbol" ? String(p) : p))
    const line = lineOf(doc, counter, keyPath)
    const reason = issue === undefined ? "invalid value" : issue._tag === "Unexpected" ? unexpectedKeyReason(keyPath) : issue.message
    return Either.left(new ConfigInvalid({
      file,
      path: `${keyPath.join(".")}${line === undefined ? "" : ` (line ${line})`}`,
      reason,
      hint: fixHint(file)
    }))
  }
  const problem = configProblems(decoded.right)[0]
  if (problem !== undefined) {
    const line = lineOf(doc, counter, problem.path.split("."))
    return Either.left(new ConfigInvalid({ file, path: `${problem.path}${line === undefined ? "" : ` (line ${line})`}`, reason: problem.reason, hint: fixHint(file) }))
  }
  return Either.right({ config: decoded.right, doc })
}

const toYamlNode = (doc: Document, value: unknown) => doc.createNode(value, { flow: false })

const editorFor = (doc: Document): ConfigEditor => ({
  get: (keyPath) => {
    const node = doc.getIn(keyPath, true)
    if (node === undefined) return undefined
    return isScalar(node) ? node.value : isMap(node) || typeof node === "object" ? (node as { toJSON: () => unknown }).toJSON() : node
  },
  set: (keyPath, value) => {
    // An empty file (or one holding only `null`) has no mapping to edit yet.
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) doc.contents = doc.createNode({}) as never
    const existing = doc.getIn(keyPath, true)
    const primitive = value === null || typeof value !== "object"
    if (isScalar(existing) && primitive) {
      // Change the value in place so the node keeps its comments and style.
      existing.value = value
      return
    }
    const node = toYamlNode(doc, value) as { comment?: string | null; commentBefore?: string | null }
    if (existing !== undefined && existing !== null && typeof existing === "object") {
      const old = existing as { comment?: string | null; commentBefore?: string | null }
      node.comment = old.comment ?? null
      node.commentBefore = old.commentBefore ?? null
    }
    doc.setIn(keyPath, node)
  },
  delete: (keyPath) => {
    // deleteIn throws when a parent is missing (or the file is empty); a key that is not there is already unset.
    if (!doc.hasIn(keyPath)) return
    doc.deleteIn(keyPath)
    // Drop parents the deletion left empty, so `unset search.limit` leaves no `search: {}` behind.
    for (let depth = keyPath.length - 1; depth > 0; depth--) {
      const parent = doc.getIn(keyPath.slice(0, depth), true)
      if (!isMap(parent) || parent.items.length > 0) break
      doc.deleteIn(keyPath.slice(0, depth))
    }
  },
  renameKey: (keyPath, to) => {
    const parent = keyPath.length === 1 ? doc.contents : doc.getIn(keyPath.slice(0, -1), true)
    const from = keyPath[keyPath.length - 1]
    const pair = isMap(parent) ? parent.items.find((p) => isScalar(p.key) && String(p.key.value) === from) : undefined
    if (pair === undefined) throw new Error(`${keyPath.join(".")} is not set`)
    if (isScalar(pair.key)) pair.key.value = to
    else pair.key = doc.createNode(to)
  }
})

/** A `set` of a scalar the file already has: the one kind of edit that can be made to the source text itself. */
interface ScalarEdit {
  readonly keyPath: ConfigPath
  readonly value: unknown
}

/** Replaces one scalar's source, keeping its quotes where it had them; undefined when no spelling reads back as `value`. */
const spliceScalar = (text: string, { keyPath, value }: ScalarEdit): string | undefined => {
  if (value !== null && typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") return undefined
  const node = parseDocument(text).getIn(keyPath, true)
  if (!isScalar(node) || node.range === undefined || node.range === null) return undefined
  const [start, end] = node.range
  const spellings = node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE" ? [JSON.stringify(value), String(value)] : [String(value), JSON.stringify(value)]
  return spellings
    .map((spelling) => `${text.slice(0, start)}${spelling}${text.slice(end)}`)
    .find((candidate) => {
      const reread = parseDocument(candidate)
      return reread.errors.length === 0 && isDeepStrictEqual(reread.getIn(keyPath), value)
    })
}

/** The text with every edit spliced in, or undefined when an edit is structural (a new key, a deletion, a collection). */
const spliceScalars = (text: string, edits: ReadonlyArray<ScalarEdit | undefined>): string | undefined =>
  edits.reduce<string | undefined>((current, edit) => (current === undefined || edit === undefined ? undefined : spliceScalar(current, edit)), text)

const unavailable = (file: string) => (cause: unknown) =>
  new WorkspaceUnavailable({
    path: file,
    reason: cause instanceof Error ? cause.message : String(cause),
    hint: "check that the directory exists and that you may write to it"
  })

const readIfExists = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
    throw error
  }
}

/** The file-backed workspace over resolved paths. */
export const makeWorkspaceConfig = (paths: WorkspacePaths): WorkspaceConfig["Type"] => {
  // Config and akm.lock rewrites take milliseconds: a holder older than two minutes is hung.
  const mutex = withLease(workspaceLease(path.join(paths.locksDir, "workspace.lock"), "the workspace config lock", { waitMillis: 10_000, maxAgeMillis: 120_000 }))

  const readText = Effect.try({
    try: () => readIfExists(paths.configFile),
    catch: (cause) => new ConfigInvalid({ file: paths.configFile, path: "", reason: `cannot read: ${String(cause)}`, hint: "check the file's permissions" })
  })

  // One command reads the config from several services (search's limit, the redactor's allow-list): the file is
  // read each time, so an edit is always seen, but the same text is parsed once (bound: one entry).
  let parsed: { readonly text: string | undefined; readonly config: AkmConfig } | undefined
  const read = Effect.flatMap(readText, (text) =>
    parsed !== undefined && parsed.text === text
      ? Effect.succeed(parsed.config)
      : Effect.tap(
        text === undefined ? Effect.succeed(Schema.decodeUnknownSync(AkmConfig)({})) : Effect.map(parseConfigText(paths.configFile, text), (r) => r.config),
        (config) => Effect.sync(() => (parsed = { text, config }))
      )
  )

  const update = (edit: (editor: ConfigEditor) => void) =>
    mutex(
      Effect.gen(function* () {
        const text = (yield* readText) ?? CONFIG_HEADER
        const doc = parseDocument(text)
        if (doc.errors.length > 0) {
          // Surface the precise parse problem instead of editing a broken file.
          return yield* parseConfigText(paths.configFile, text).pipe(Either.map((r) => r.config))
        }
        const edits: Array<ScalarEdit | undefined> = []
        const editor = editorFor(doc)
        const applied = Either.try(() =>
          edit({
            get: editor.get,
            set: (keyPath, value) => {
              edits.push(isScalar(doc.getIn(keyPath, true)) ? { keyPath, value } : undefined)
              editor.set(keyPath, value)
            },
            delete: (keyPath) => {
              edits.push(undefined)
              editor.delete(keyPath)
            },
            renameKey: (keyPath, to) => {
              edits.push(undefined)
              editor.renameKey(keyPath, to)
            }
          })
        )
        if (Either.isLeft(applied)) {
          // An edit through a scalar or a list (`search: 5`, then search.limit): report the file's own problem, else the edit's.
          const current = parseConfigText(paths.configFile, text)
          return yield* Either.isLeft(current) ? current.left : new ConfigInvalid({
            file: paths.configFile,
            path: "",
            reason: `cannot apply the change: ${applied.left instanceof Error ? applied.left.message : String(applied.left)}`,
            hint: fixHint(paths.configFile)
          })
        }
        // Changed scalars are spliced into the source, so every other byte stays (R-WS-5); structural edits re-serialise.
        const spliced = spliceScalars(text, edits)
        const next = spliced !== undefined && isDeepStrictEqual(parseDocument(spliced).toJS(), doc.toJS()) ? spliced
          // Nothing to write but the comments: keep the text, or YAML would emit a literal `null`.
          : doc.contents === null ? text
          : doc.toString({ flowCollectionPadding: false })
        const parsed = yield* parseConfigText(paths.configFile, next)
        yield* Effect.try({ try: () => atomicWriteFileSync(paths.configFile, next), catch: unavailable(paths.configFile) })
        return parsed.config
      })
    )

  const decodeLock = Schema.decodeUnknownEither(Schema.parseJson(LockFile))
  const readLock = Effect.gen(function* () {
    const text = yield* Effect.try({
      try: () => readIfExists(paths.lockFile),
      catch: (cause) => new ConfigInvalid({ file: paths.lockFile, path: "", reason: `cannot read: ${String(cause)}`, hint: "check the file's permissions" })
    })
    if (text === undefined) return emptyLock
    const decoded = decodeLock(text)
    if (Either.isLeft(decoded)) {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
      return yield* new ConfigInvalid({
        file: paths.lockFile,
        path: (issue?.path ?? []).join("."),
        reason: issue?.message ?? "invalid lock file",
        hint: "the lock is written by akm; restore it from a backup or remove it and re-add the bundles"
      })
    }
    return decoded.right
  })

  const updateLock = (f: (lock: typeof LockFile.Type) => typeof LockFile.Type) =>
    mutex(
      Effect.gen(function* () {
        const next = f(yield* readLock)
        yield* Effect.try({
          try: () => atomicWriteFileSync(paths.lockFile, `${JSON.stringify(next, null, 2)}\n`),
          catch: unavailable(paths.lockFile)
        })
        return next
      })
    )

  const ensureDirs = Effect.gen(function* () {
    const config = yield* read
    // R-WS-1: workspace state never lives under a bundle root, so check before creating anything.
    for (const [name, bundle] of Object.entries(config.bundles)) {
      if (bundle.source.kind !== "filesystem") continue
      const root = resolveUserPath(bundle.source.path, path.dirname(paths.configFile))
      for (const [label, dir] of [["data", paths.dataDir], ["cache", paths.cacheDir]] as const) {
        if (isInside(canonicalPath(dir), canonicalPath(root))) {
          return yield* new WorkspaceUnavailable({
            path: dir,
            reason: `the ${label} directory is inside bundle '${name}' (${root})`,
            hint: `move AKM_${label.toUpperCase()}_DIR outside every bundle root`
          })
        }
      }
    }
    yield* Effect.try({
      try: () => {
        for (const dir of [paths.configDir, paths.dataDir, paths.cacheDir, paths.locksDir, paths.txnDir, paths.archiveDir, paths.packetsDir, paths.bundlesDir, paths.sourcesDir]) {
          fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
        }
      },
      catch: unavailable(paths.dataDir)
    })
  })

  return { paths, ensureDirs, read, readText, update, readLock, updateLock }
}

/** The real path of `p`, resolving symlinks of its nearest existing ancestor when `p` itself does not exist yet. */
const canonicalPath = (p: string): string => {
  const absolute = path.resolve(p)
  try {
    return fs.realpathSync(absolute)
  } catch {
    const parent = path.dirname(absolute)
    return parent === absolute ? absolute : path.join(canonicalPath(parent), path.basename(absolute))
  }
}

const isInside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

export const resolveUserPath = (p: string, base: string): string => expandUserPath(p, base, os.homedir())

/** Paths from AKM_* variables, XDG defaults and CLI overrides (spec 01 §1). */
/** Relative AKM_* / XDG_* values are made absolute once, so the workspace never follows the current directory. */
const absoluteEnv = (env: NodeJS.ProcessEnv): Record<string, string | undefined> => {
  const out: Record<string, string | undefined> = { ...env }
  for (const name of ["AKM_CONFIG_DIR", "AKM_DATA_DIR", "AKM_CACHE_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"]) {
    const value = env[name]
    if (value !== undefined && value !== "") out[name] = path.resolve(value)
  }
  return out
}

export const resolveWorkspacePaths = (overrides: PathOverrides = {}): WorkspacePaths =>
  workspacePaths(absoluteEnv(process.env), os.homedir(), path.join, {
    configDir: overrides.configDir === undefined ? undefined : path.resolve(overrides.configDir),
    dataDir: overrides.dataDir === undefined ? undefined : path.resolve(overrides.dataDir),
    cacheDir: overrides.cacheDir === undefined ? undefined : path.resolve(overrides.cacheDir)
  })

export const WorkspaceConfigLive = (overrides: PathOverrides = {}): Layer.Layer<WorkspaceConfig> =>
  Layer.sync(WorkspaceConfig, () => makeWorkspaceConfig(resolveWorkspacePaths(overrides)))
