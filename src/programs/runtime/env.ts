import { Effect, Redacted } from "effect"
import { isDangerousEnvKey } from "../../domain/DangerousEnvKeys.js"
import { sha256Hex } from "../../domain/Digest.js"
import { formatEnvValue } from "../../domain/DotenvValues.js"
import { UsageError } from "../../domain/Errors.js"
import { DangerousEnvRefused, EnvKeyMissing } from "../../domain/RuntimeErrors.js"
import { Bindings } from "../../services/Bindings.js"
import { ChildProcess } from "../../services/ChildProcess.js"
import { Credentials } from "../../services/Credentials.js"
import { EnvFiles } from "../../services/EnvFiles.js"
import { IndexStore } from "../../services/IndexStore.js"
import { Progress } from "../../services/Progress.js"
import { ensureIndexed } from "../ensureIndexed.js"
import { recordEvent } from "../events.js"
import { boundEnv, readEnvEntries, type BoundEnv } from "./envValues.js"
import { exportOf } from "./exportOf.js"

const MAX_ITEMS = 10_000

export interface EnvKeyView {
  readonly name: string
  readonly description?: string | undefined
  /** required: declared without a value (set it with `env set` or map it in a binding). */
  readonly required: boolean
  /** Shown only for a key its author marked `# akm:default`. */
  readonly default?: string | undefined
  /** A loader or shell-hook key (R-RT-8): `env run` refuses it from git/npm/website bundles unless allowed. */
  readonly dangerous?: true
}

/** `akm env list [ref]`: env items, their keys and descriptions — never a value but marked defaults (R-RT-7). */
export const envList = Effect.fn("runtime.envList")(function* (ref: string | undefined) {
  if (ref === undefined) {
    yield* ensureIndexed
    const { items } = yield* (yield* IndexStore).browse({ prefix: "", filters: { types: ["env"], belief: "all", includeProposed: true }, limit: MAX_ITEMS })
    return { items: items.map((item) => ({ ref: item.ref, name: item.name, description: item.description, keys: item.hints })) }
  }
  const located = yield* exportOf(ref)
  if (located.export.kind !== "environment") {
    return yield* new UsageError({ message: `${located.export.ref} is a ${located.export.kind}, not an env file`, hint: "list env items with `akm env list`" })
  }
  const entries = yield* readEnvEntries(located)
  const doc = yield* (yield* IndexStore).resolve(located.export.ref)
  const described = new Map(((doc?.extra as { keys?: ReadonlyArray<{ name: string; description?: string }> } | undefined)?.keys ?? []).map((k) => [k.name, k.description]))
  const keys: Array<EnvKeyView> = entries.map((entry) => ({
    name: entry.name,
    ...(described.get(entry.name) === undefined ? {} : { description: described.get(entry.name) }),
    required: entry.value === undefined,
    ...(entry.isDefault && entry.value !== undefined ? { default: entry.value } : {}),
    ...(isDangerousEnvKey(entry.name) ? { dangerous: true as const } : {})
  }))
  const bindings = (yield* (yield* Bindings).forExport(located.export.ref)).map((b) => ({ alias: b.alias, current: b.digest === located.export.digest }))
  return { items: [{ ref: located.export.ref, name: doc?.name ?? located.export.id, description: doc?.description, source: located.source, keys, bindings }] }
})

export interface EnvSelection {
  readonly target: string
  readonly only: ReadonlyArray<string>
  readonly allowDangerous: ReadonlyArray<string>
}

/**
 * The variables to inject: the file's values, then the binding's references
 * resolved (they win), filtered by --only; dangerous keys from a bundle of a
 * git/npm/website source refuse the whole run unless allowed by name (R-RT-8),
 * and a required key left without a value refuses it too. Values stay
 * Redacted until the child's environment is built.
 */
const injection = (bound: BoundEnv, selection: EnvSelection, verb: string) =>
  Effect.gen(function* () {
    const credentials = yield* Credentials
    const fromFile = new Map(bound.entries.map((e) => [e.name, e.value] as const))
    const mapped = Object.entries(bound.binding?.env ?? {})
    const declared = new Set([...fromFile.keys(), ...mapped.map(([key]) => key)])
    const unknown = selection.only.filter((key) => !declared.has(key))
    if (unknown.length > 0) {
      return yield* new UsageError({ message: `--only names ${unknown.join(", ")}, which ${bound.located.export.ref} does not define`, hint: `its keys: ${[...declared].join(", ") || "(none)"}` })
    }
    const wanted = (key: string) => selection.only.length === 0 || selection.only.includes(key)
    const values = new Map<string, Redacted.Redacted<string>>()
    for (const [key, value] of fromFile) if (wanted(key) && value !== undefined) values.set(key, Redacted.make(value))
    for (const [key, reference] of mapped) {
      if (!wanted(key)) continue
      const resolved = yield* credentials.resolve(reference).pipe(
        Effect.mapError((e) => new EnvKeyMissing({ keys: [key], message: `${key}: ${e.message}`, hint: e.hint }))
      )
      values.set(key, resolved)
    }
    // R-RT-8: only keys the bundle itself supplies; references the operator mapped are the operator's choice.
    const mappedKeys = new Set(mapped.map(([key]) => key))
    const dangerous = [...values.keys()].filter((key) => !mappedKeys.has(key) && isDangerousEnvKey(key))
    if (dangerous.length > 0) {
      const allowed = new Set(selection.allowDangerous.map((k) => k.toUpperCase()))
      const refused = dangerous.filter((key) => !allowed.has(key.toUpperCase()))
      if (bound.located.source !== "filesystem" && refused.length > 0) {
        return yield* new DangerousEnvRefused({
          keys: refused,
          message: `${bound.located.export.ref} (from a ${bound.located.source} bundle) sets ${refused.join(", ")}, which can change what programs load or run; nothing was ${verb === "run" ? "run" : "written"}`,
          hint: `if you trust it, repeat with ${refused.map((k) => `--allow-dangerous ${k}`).join(" ")}, or leave it out with --only`
        })
      }
      if (bound.located.source === "filesystem") {
        yield* (yield* Progress).warn(`warning: ${bound.located.export.ref} sets ${dangerous.join(", ")}, which can change what programs load or run`)
      }
    }
    const missing = [...declared].filter((key) => wanted(key) && !values.has(key))
    // The file's order, mapped keys after: an exported file reads like its source.
    const ordered = new Map([...declared].filter((key) => values.has(key)).map((key) => [key, values.get(key)!] as const))
    if (missing.length > 0) {
      return yield* new EnvKeyMissing({
        keys: missing,
        message: `${bound.located.export.ref} needs ${missing.join(", ")}, which ${missing.length === 1 ? "has" : "have"} no value; nothing was ${verb === "run" ? "run" : "written"}`,
        hint: `set ${missing.length === 1 ? "it" : "each"} with \`akm env set ${bound.located.export.ref} ${missing[0]}\` (the value from stdin), or map it: \`akm bind ${bound.located.export.ref} --env ${missing[0]}=secret:<ref>\``
      })
    }
    return ordered
  })

/** `akm env run <ref|alias> -- cmd args…`: the values go into the child's environment only (R-RT-7); the child's exit code is returned. */
export const envRun = Effect.fn("runtime.envRun")(function* (selection: EnvSelection, argv: ReadonlyArray<string>, cwd: string) {
  if (argv.length === 0) return yield* new UsageError({ message: "no command to run", hint: "put the command after `--`, e.g. `akm env run <ref> -- node app.js`" })
  const bound = yield* boundEnv(selection.target, "run")
  const values = yield* injection(bound, selection, "run")
  yield* recordEvent("env.run", bound.located.export.ref, { alias: bound.binding?.alias ?? null, keys: [...values.keys()], program: argv[0] })
  const inject = Object.fromEntries([...values].map(([key, value]) => [key, Redacted.value(value)]))
  const exit = yield* (yield* ChildProcess).run(argv, inject, cwd)
  return { ref: bound.located.export.ref, keys: [...values.keys()], exit }
})

/** `akm env export <ref> --out FILE`: a 0600 dotenv file, never stdout. */
export const envExport = Effect.fn("runtime.envExport")(function* (selection: EnvSelection, out: string) {
  const bound = yield* boundEnv(selection.target, "export")
  const values = yield* injection(bound, selection, "export")
  const text = [...values].map(([key, value]) => `${key}=${formatEnvValue(Redacted.value(value))}\n`).join("")
  yield* (yield* EnvFiles).writePrivate(out, new TextEncoder().encode(text))
  yield* recordEvent("env.export", bound.located.export.ref, { keys: [...values.keys()], hash: sha256Hex(text) })
  return { ref: bound.located.export.ref, out, keys: [...values.keys()], mode: "0600" }
})
