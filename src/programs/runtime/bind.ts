import { createTwoFilesPatch } from "diff"
import { Clock, Effect } from "effect"
import { isDangerousEnvKey } from "../../domain/DangerousEnvKeys.js"
import { Conflict, NotFound, UsageError } from "../../domain/Errors.js"
import { ALIAS, CREDENTIAL_REFERENCE, defaultAlias, parsePairs, type Binding } from "../../domain/RuntimeExport.js"
import { ExportChanged } from "../../domain/RuntimeErrors.js"
import { Bindings } from "../../services/Bindings.js"
import { Redactor } from "../../services/Redactor.js"
import { recordEvent } from "../events.js"
import { exportOf, type LocatedExport } from "./exportOf.js"

export interface BindInput {
  readonly ref: string
  readonly alias?: string | undefined
  readonly params: ReadonlyArray<string>
  readonly env: ReadonlyArray<string>
}

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/

/** The approved definition as stored: through the redactor, like every text akm writes to a db (R-RED-1). */
const storedDefinition = (located: LocatedExport) => Effect.flatMap(Redactor, (r) => r.redact(located.export.definition))

/** The unified diff of an export's definition from the approved one to the current one (env files: key names only). */
export const definitionDiff = (binding: Binding, current: string): string =>
  createTwoFilesPatch(`${binding.exportRef} (approved)`, `${binding.exportRef} (now)`, binding.definition, current, undefined, undefined, { context: 3 })
    .split("\n").slice(1).join("\n")

/** `akm bind <export-ref>`: approves an export at its current digest under an alias (spec 07 §1). */
export const bind = Effect.fn("runtime.bind")(function* (input: BindInput) {
  const alias = input.alias ?? undefined
  if (alias !== undefined && !ALIAS.test(alias)) {
    return yield* new UsageError({ message: `--as '${alias.slice(0, 64)}' is not a valid alias`, hint: "use letters, digits, '-', '_' and '.', starting with a letter or digit (at most 64)" })
  }
  const params = parsePairs("--param", input.params)
  if (typeof params === "string") return yield* new UsageError({ message: params, hint: "e.g. --param region=eu" })
  const env = parsePairs("--env", input.env, (key, value) =>
    !ENV_KEY.test(key)
      ? `--env: '${key.slice(0, 40)}' is not an environment variable name`
      : CREDENTIAL_REFERENCE.test(value)
      ? undefined
      : `--env ${key}= takes a reference, env:VAR or secret:<ref>, never a value`)
  if (typeof env === "string") return yield* new UsageError({ message: env, hint: "store the value with `akm secret set <ref>` and write --env KEY=secret:<ref>, or --env KEY=env:VAR" })
  const located = yield* exportOf(input.ref)
  const chosen = alias ?? defaultAlias(located.export.ref)
  const now = new Date(yield* Clock.currentTimeMillis).toISOString()
  const binding: Binding = {
    alias: chosen,
    exportRef: located.export.ref,
    kind: located.export.kind,
    digest: located.export.digest,
    definition: yield* storedDefinition(located),
    params,
    env,
    source: located.source,
    approvedAt: now
  }
  const added = yield* (yield* Bindings).add(binding)
  if (!added) {
    return yield* new Conflict({
      message: `the alias '${chosen}' is already bound`,
      hint: `see it with \`akm bindings\`; choose another with --as, re-approve it with \`akm bind --update ${chosen}\`, or remove it with \`akm unbind ${chosen}\``
    })
  }
  yield* recordEvent("binding.created", located.export.ref, { alias: chosen, kind: binding.kind, digest: binding.digest, env: Object.keys(env), params: Object.keys(params) })
  // R-RT-8: said at approval time too, so the operator reviews them before the first run.
  const dangerous = (located.export.requirements.env ?? []).filter((key) => isDangerousEnvKey(key) && env[key] === undefined)
  return { ...summary(binding), status: "current" as const, dangerous }
})

/** A binding as listed: references and names only (never values). */
const summary = (b: Binding) => ({ alias: b.alias, ref: b.exportRef, kind: b.kind, digest: b.digest, source: b.source, params: b.params, env: b.env, approvedAt: b.approvedAt })

export type BindingStatus = "current" | "changed" | "missing"

/** `akm bindings`: every binding with whether its export still has the approved digest. */
export const bindings = Effect.fn("runtime.bindings")(function* () {
  const all = yield* (yield* Bindings).list
  const rows = []
  for (const b of all) {
    const located = yield* Effect.either(exportOf(b.exportRef))
    const status: BindingStatus = located._tag === "Left" ? "missing" : located.right.export.digest === b.digest ? "current" : "changed"
    rows.push({ ...summary(b), status })
  }
  return { bindings: rows }
})

/** `akm unbind <alias>`. */
export const unbind = Effect.fn("runtime.unbind")(function* (alias: string) {
  const store = yield* Bindings
  const existing = yield* store.get(alias)
  if (existing === undefined || !(yield* store.remove(alias))) return yield* noBinding(alias)
  yield* recordEvent("binding.removed", existing.exportRef, { alias })
  return { alias, ref: existing.exportRef, removed: true }
})

export const noBinding = (alias: string) =>
  new NotFound({ what: "binding", name: alias, message: `no binding named '${alias}'`, hint: "list them with `akm bindings`; bind an export with `akm bind <ref> --as <alias>`" })

/** `akm bind --update <alias>`: approves the export's current digest, showing what changed (R-RT-3). */
export const bindUpdate = Effect.fn("runtime.bindUpdate")(function* (alias: string) {
  const store = yield* Bindings
  const existing = yield* store.get(alias)
  if (existing === undefined) return yield* noBinding(alias)
  const located = yield* exportOf(existing.exportRef)
  const definition = yield* storedDefinition(located)
  const changed = located.export.digest !== existing.digest
  const diff = changed ? definitionDiff(existing, definition) : ""
  if (changed) {
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    yield* store.approve(alias, { digest: located.export.digest, definition, approvedAt: now })
    yield* recordEvent("binding.approved", existing.exportRef, { alias, from: existing.digest, to: located.export.digest })
  }
  return { alias, ref: existing.exportRef, changed, from: existing.digest, to: located.export.digest, diff }
})

/**
 * The binding a run goes through, checked against the export as it is now:
 * a changed digest is refused with the definition's diff until
 * `bind --update` (R-RT-3).
 */
export const checkBinding = (binding: Binding, located: LocatedExport) =>
  Effect.gen(function* () {
    if (located.export.digest === binding.digest) return binding
    const current = yield* storedDefinition(located)
    const diff = definitionDiff(binding, current)
    const onlyValues = binding.definition === current
    return yield* new ExportChanged({
      alias: binding.alias,
      ref: binding.exportRef,
      diff,
      message: `${binding.exportRef} changed since it was bound as '${binding.alias}'; nothing was run${onlyValues ? " (its key names are the same: values changed, which are never shown)" : `:\n${diff}`}`,
      hint: `review the change, then approve it with \`akm bind --update ${binding.alias}\``
    })
  })
