import { Effect } from "effect"
import { parse as parseYaml } from "yaml"
import { ConfigInvalid, NotFound, UsageError } from "../domain/Errors.js"
import { expandUserPath } from "../domain/Paths.js"
import { refuseWorkspaceInside } from "./bundle/checks.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"

/** "bundles.notes.writable" → ["bundles", "notes", "writable"]; rejects empty segments. */
export const parseKey = (key: string) =>
  Effect.gen(function* () {
    const parts = key.split(".")
    if (key.trim() === "" || parts.some((p) => p === "")) {
      return yield* new UsageError({ message: `'${key}' is not a config key`, hint: "keys are dotted paths such as search.limit or bundles.notes.writable" })
    }
    return parts
  })

/** A typed value from the command line: YAML scalars and flow collections (`true`, `20`, `[a, b]`). */
const parseValue = (raw: string): unknown => {
  try {
    return parseYaml(raw) as unknown
  } catch {
    return raw
  }
}

export const configGet = Effect.fn("config.get")(function* (key: string) {
  const workspace = yield* WorkspaceConfig
  const path = yield* parseKey(key)
  const config = yield* workspace.read
  let value: unknown = config
  for (const part of path) {
    value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined
  }
  if (value === undefined) {
    return yield* new NotFound({ what: "config key", name: key, message: `config key '${key}' is not set`, hint: "run `akm config list` to see what is set" })
  }
  return { key, value }
})

/**
 * A value `config set` refused, told about the key and what it expects: the
 * file was not changed, so a line number in the edited text would point nowhere.
 */
const forKey = (key: string, raw: string, error: ConfigInvalid): ConfigInvalid => {
  if (error.path !== key && !error.path.startsWith(`${key} `)) return error
  const expected = /^Expected (.+?), actual /.exec(error.reason)?.[1]
  const wanted = expected === undefined ? undefined : /^(a|an) /.test(expected) ? expected : `${/^[aeiou]/.test(expected) ? "an" : "a"} ${expected}`
  return new ConfigInvalid({
    file: error.file,
    path: wanted === undefined ? key : "",
    reason: wanted === undefined ? error.reason : `${key} must be ${wanted}, not ${JSON.stringify(raw)}`,
    hint: `config.yaml was not changed; e.g. \`akm config get ${key}\` shows the current value`
  })
}

/** The config with `value` set at `path`, as plain data (the edit is checked before it is written). */
const withValue = (config: unknown, path: ReadonlyArray<string>, value: unknown): unknown => {
  const [head, ...rest] = path
  if (head === undefined) return value
  const object = config !== null && typeof config === "object" && !Array.isArray(config) ? (config as Record<string, unknown>) : {}
  return { ...object, [head]: withValue(object[head], rest, value) }
}

/**
 * R-WS-1 for `config set bundles.*`: a filesystem bundle's folder may not
 * overlap the workspace's own directories, the same rule `bundle add` applies.
 */
const refuseOverlappingRoots = (path: ReadonlyArray<string>, value: unknown, home: string | undefined) =>
  Effect.gen(function* () {
    const workspace = yield* WorkspaceConfig
    const current = yield* workspace.read
    const next = withValue(current, path, value) as { readonly bundles?: Record<string, { readonly source?: { readonly kind?: unknown; readonly path?: unknown } }> }
    for (const [name, bundle] of Object.entries(next.bundles ?? {})) {
      const source = bundle?.source
      if (source?.kind !== "filesystem" || typeof source.path !== "string" || source.path === "") continue
      if (source.path.startsWith("~") && home === undefined) continue
      const root = expandUserPath(source.path, workspace.paths.configDir, home ?? "/")
      yield* refuseWorkspaceInside(workspace.paths, name, root)
    }
  })

export const configSet = Effect.fn("config.set")(function* (key: string, raw: string, caller: { readonly home?: string } = {}) {
  const workspace = yield* WorkspaceConfig
  const path = yield* parseKey(key)
  const value = parseValue(raw)
  if (path[0] === "bundles") yield* refuseOverlappingRoots(path, value, caller.home)
  yield* workspace.update((editor) => editor.set(path, value)).pipe(Effect.catchTag("ConfigInvalid", (e) => Effect.fail(forKey(key, raw, e))))
  return { key, value }
})

export const configUnset = Effect.fn("config.unset")(function* (key: string) {
  const workspace = yield* WorkspaceConfig
  const path = yield* parseKey(key)
  yield* workspace.update((editor) => editor.delete(path))
  return { key }
})

export const configList = Effect.fn("config.list")(function* () {
  const workspace = yield* WorkspaceConfig
  return { file: workspace.paths.configFile, config: yield* workspace.read }
})

export const configPath = Effect.fn("config.path")(function* () {
  const workspace = yield* WorkspaceConfig
  return { path: workspace.paths.configFile, exists: (yield* workspace.readText) !== undefined }
})
