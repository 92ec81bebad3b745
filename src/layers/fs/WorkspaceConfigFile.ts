import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Either, Layer, ParseResult, Schema } from "effect"
import { isMap, isScalar, LineCounter, parseDocument, type Document } from "yaml"
import { AkmConfig, configProblems } from "../../domain/Config.js"
import { ConfigInvalid, WorkspaceUnavailable } from "../../domain/Errors.js"
import { emptyLock, LockFile } from "../../domain/Lock.js"
import { expandUserPath, workspacePaths, type PathOverrides, type WorkspacePaths } from "../../domain/Paths.js"
import { WorkspaceConfig, type ConfigEditor } from "../../services/WorkspaceConfig.js"
import { atomicWriteFileSync } from "./atomicWrite.js"
import { withFileMutex } from "./FileMutex.js"

const CONFIG_HEADER = "# akm desired configuration — see docs/configuration.md\n"

const fixHint = (file: string) => `edit ${file} (or run \`akm config set <key> <value>\`) and try again`

/** Reports the line of a key path in the YAML source, when it can be found. */
const lineOf = (doc: Document, counter: LineCounter, keyPath: ReadonlyArray<string | number>): number | undefined => {
  for (let depth = keyPath.length; depth > 0; depth--) {
    const node = doc.getIn(keyPath.slice(0, depth), true) as { range?: [number, number, number] } | undefined
    if (node !== undefined && node !== null && typeof node === "object" && node.range !== undefined) {
      return counter.linePos(node.range[0]).line
    }
  }
  return undefined
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
    const reason = issue === undefined ? "invalid value" : issue._tag === "Unexpected" ? "unknown key (check its spelling)" : issue.message
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
    if (doc.contents === null) doc.contents = doc.createNode({}) as never
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
    doc.deleteIn(keyPath)
  }
})

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
  const mutex = withFileMutex(path.join(paths.locksDir, "workspace.lock"))

  const readText = Effect.try({
    try: () => readIfExists(paths.configFile),
    catch: (cause) => new ConfigInvalid({ file: paths.configFile, path: "", reason: `cannot read: ${String(cause)}`, hint: "check the file's permissions" })
  })

  const read = Effect.flatMap(readText, (text) =>
    text === undefined ? Effect.succeed(Schema.decodeUnknownSync(AkmConfig)({})) : Effect.map(parseConfigText(paths.configFile, text), (r) => r.config)
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
        edit(editorFor(doc))
        const next = doc.toString({ flowCollectionPadding: false })
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
    yield* Effect.try({
      try: () => {
        for (const dir of [paths.configDir, paths.dataDir, paths.cacheDir, paths.locksDir, paths.txnDir, paths.archiveDir, paths.packetsDir, paths.bundlesDir, paths.sourcesDir]) {
          fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
        }
      },
      catch: unavailable(paths.dataDir)
    })
    // R-WS-1: workspace state never lives under a bundle root.
    for (const [name, bundle] of Object.entries(config.bundles)) {
      if (bundle.source.kind !== "filesystem") continue
      const root = resolveUserPath(bundle.source.path, path.dirname(paths.configFile))
      for (const [label, dir] of [["data", paths.dataDir], ["cache", paths.cacheDir]] as const) {
        if (isInside(realOrSelf(dir), realOrSelf(root))) {
          return yield* new WorkspaceUnavailable({
            path: dir,
            reason: `the ${label} directory is inside bundle '${name}' (${root})`,
            hint: `move AKM_${label.toUpperCase()}_DIR outside every bundle root`
          })
        }
      }
    }
  })

  return { paths, ensureDirs, read, readText, update, readLock, updateLock }
}

const realOrSelf = (p: string): string => {
  try {
    return fs.realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

const isInside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

export const resolveUserPath = (p: string, base: string): string => expandUserPath(p, base, os.homedir())

/** Paths from AKM_* variables, XDG defaults and CLI overrides (spec 01 §1). */
export const resolveWorkspacePaths = (overrides: PathOverrides = {}): WorkspacePaths =>
  workspacePaths(process.env, os.homedir(), path.join, {
    configDir: overrides.configDir === undefined ? undefined : path.resolve(overrides.configDir),
    dataDir: overrides.dataDir === undefined ? undefined : path.resolve(overrides.dataDir),
    cacheDir: overrides.cacheDir === undefined ? undefined : path.resolve(overrides.cacheDir)
  })

export const WorkspaceConfigLive = (overrides: PathOverrides = {}): Layer.Layer<WorkspaceConfig> =>
  Layer.sync(WorkspaceConfig, () => makeWorkspaceConfig(resolveWorkspacePaths(overrides)))
