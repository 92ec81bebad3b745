import { Effect, Either } from "effect"
import { parseEnvValues, type EnvEntry } from "../../domain/DotenvValues.js"
import { UsageError } from "../../domain/Errors.js"
import { parse } from "../../domain/Ref.js"
import { ExportNotBound, EnvFileInvalid } from "../../domain/RuntimeErrors.js"
import type { Binding } from "../../domain/RuntimeExport.js"
import { decodeUtf8 } from "../../domain/Utf8.js"
import { Bindings } from "../../services/Bindings.js"
import { EnvFiles } from "../../services/EnvFiles.js"
import { resolveBundle } from "../scan.js"
import { checkBinding } from "./bind.js"
import { exportOf, type LocatedExport } from "./exportOf.js"

/** An env export ready to inject: where it is, the binding it goes through (if any), its parsed entries. */
export interface BoundEnv {
  readonly located: LocatedExport
  readonly binding: Binding | undefined
  readonly entries: ReadonlyArray<EnvEntry>
}

const PROBLEM_TEXT = {
  "invalid-line": "is neither KEY=value, a bare KEY nor a # comment",
  "unterminated-value": "opens a quoted value that is never closed",
  "duplicate-key": "assigns a key a second time"
} as const

/** The values of an env file, or a refusal naming the file and the line (never the text: it may be a value). */
export const readEnvEntries = (located: LocatedExport) =>
  Effect.gen(function* () {
    const where = `${located.root}/${located.file}`
    const bytes = yield* (yield* EnvFiles).read(located.root, located.file)
    if (bytes === undefined) return yield* new EnvFileInvalid({ path: where, message: `${where} no longer exists`, hint: "run `akm index` to bring the index up to date" })
    const text = decodeUtf8(bytes)
    if (text === undefined) {
      return yield* new EnvFileInvalid({ path: where, message: `${where} is not valid UTF-8 text, so no value of it is injected`, hint: "save the file as UTF-8 (akm never guesses an encoding for values)" })
    }
    const parsed = parseEnvValues(text)
    const problem = parsed.problems[0]
    if (problem !== undefined) {
      return yield* new EnvFileInvalid({
        path: where,
        message: `${where}:${problem.line}: line ${problem.line} ${PROBLEM_TEXT[problem.kind]}${problem.name === undefined ? "" : ` (${problem.name})`}; nothing was injected`,
        hint: problem.kind === "duplicate-key" ? "keep one assignment of each key" : "fix the line (`akm lint` lists every such line)"
      })
    }
    return parsed.entries
  })

/**
 * A ref the index does not have may still name an env file the walk left out
 * — one that is not UTF-8 —: say so instead of "not found".
 */
const unindexedEnvFile = <E>(target: string, original: E) =>
  Effect.gen(function* () {
    const parsed = parse(target)
    if (Either.isLeft(parsed) || parsed.right.bundle === undefined) return yield* Effect.fail(original)
    const { bundle, conceptId } = parsed.right
    const root = yield* Effect.orElseSucceed(Effect.map(resolveBundle(bundle), (r) => r.info.root), () => undefined)
    if (root === undefined) return yield* Effect.fail(original)
    for (const file of [`${conceptId}.env`, conceptId]) {
      const bytes = yield* Effect.orElseSucceed((yield* EnvFiles).read(root, file), () => undefined)
      if (bytes !== undefined && decodeUtf8(bytes) === undefined) {
        const where = `${root}/${file}`
        return yield* new EnvFileInvalid({ path: where, message: `${where} is not valid UTF-8 text, so akm neither indexes nor injects it`, hint: "save the file as UTF-8 (akm never guesses an encoding for values), then run `akm index`" })
      }
    }
    return yield* Effect.fail(original)
  })

/**
 * `<alias|ref>` → the env export and the binding a run or export goes
 * through. An alias names its binding; a ref uses the export's first binding
 * when it has one. An export of a git/npm/website bundle without a binding
 * is refused (R-RT-1, R-RT-2): installing it approved nothing. A binding
 * whose export changed is refused until `bind --update` (R-RT-3).
 */
export const boundEnv = Effect.fn("runtime.boundEnv")(function* (target: string, verb: string) {
  const store = yield* Bindings
  const byAlias = target.includes("/") ? undefined : yield* store.get(target)
  const located = yield* exportOf(byAlias?.exportRef ?? target).pipe(
    Effect.catchTags({ RefNotFound: (e) => unindexedEnvFile(target, e), NotFound: (e) => unindexedEnvFile(target, e) })
  )
  const binding = byAlias ?? (yield* store.forExport(located.export.ref))[0]
  if (located.export.kind !== "environment") {
    return yield* new UsageError({ message: `${located.export.ref} is a ${located.export.kind}, not an env file`, hint: "`akm env` runs and exports env items; list them with `akm env list`" })
  }
  if (binding === undefined && located.source !== "filesystem") {
    return yield* new ExportNotBound({
      ref: located.export.ref,
      message: `${located.export.ref} comes from a ${located.source} bundle and is not bound, so akm does not ${verb} it`,
      hint: `review it (\`akm env list ${located.export.ref}\`), then approve it with \`akm bind ${located.export.ref} --as <alias>\``
    })
  }
  if (binding !== undefined) yield* checkBinding(binding, located)
  const entries = yield* readEnvEntries(located)
  const bound: BoundEnv = { located, binding, entries }
  return bound
})
