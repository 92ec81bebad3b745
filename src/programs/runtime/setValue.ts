import { Effect, Either } from "effect"
import { isWritable } from "../../domain/Config.js"
import { sha256Hex } from "../../domain/Digest.js"
import { parseEnvValues, setEnvValue } from "../../domain/DotenvValues.js"
import { Conflict, UsageError } from "../../domain/Errors.js"
import { parse, toStored } from "../../domain/Ref.js"
import { EnvFileInvalid } from "../../domain/RuntimeErrors.js"
import { decodeUtf8 } from "../../domain/Utf8.js"
import { Bindings } from "../../services/Bindings.js"
import { EnvFiles, type ValueSource } from "../../services/EnvFiles.js"
import { IndexStore } from "../../services/IndexStore.js"
import { Redactor } from "../../services/Redactor.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { ensureIndexed } from "../ensureIndexed.js"
import { recordEvent } from "../events.js"
import { indexBundles } from "../indexBundles.js"
import { resolveBundle } from "../scan.js"
import { exportOf } from "./exportOf.js"

/** The cap on one value (spec 07 §4). */
export const MAX_VALUE_BYTES = 5 * 1024 * 1024

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Adapters whose env/ and secrets/ folders akm writes (spec 03 "akm", "dotenv"). */
const VALUE_ADAPTERS = new Set(["akm", "dotenv"])

interface WriteTarget {
  readonly bundle: string
  readonly root: string
  /** Bundle-relative file. */
  readonly file: string
  readonly ref: string
}

/**
 * ref → the one file `env set` / `secret set` writes: the indexed item when
 * there is one, else a new file in the bundle the ref names (or the default
 * bundle) — `env/<name>.env` or `secrets/<name>`. Only writable akm and
 * dotenv bundles take values: a git/npm/website bundle is upstream's.
 */
const writeTarget = (input: string, kind: "env" | "secret") =>
  Effect.gen(function* () {
    const parsed = parse(input)
    if (Either.isLeft(parsed)) return yield* parsed.left
    const ref = parsed.right
    const folder = kind === "env" ? "env/" : "secrets/"
    const conceptId = ref.conceptId.startsWith(folder) ? ref.conceptId : `${folder}${ref.conceptId}`
    const config = yield* (yield* WorkspaceConfig).read
    yield* ensureIndexed
    const index = yield* IndexStore
    const candidates = ref.bundle !== undefined ? [ref.bundle] : [...new Set([...(config.defaultBundle === undefined ? [] : [config.defaultBundle]), ...Object.keys(config.bundles)])]
    let bundle: string | undefined
    for (const name of candidates) {
      if (yield* index.has(name, conceptId)) {
        bundle = name
        break
      }
    }
    bundle ??= ref.bundle ?? config.defaultBundle
    if (bundle === undefined) {
      return yield* new UsageError({ message: `'${input}' names no bundle and there is no default bundle`, hint: `write it as <bundle>//${conceptId}` })
    }
    const { info, adapter } = yield* resolveBundle(bundle)
    const configured = config.bundles[bundle]
    if (configured === undefined || !isWritable(configured)) {
      return yield* new Conflict({
        message: `bundle '${bundle}' is read-only (${configured?.source.kind ?? "unknown"} source): akm sets values only in your own writable bundles`,
        hint: "set it in a bundle of yours (`akm bundle create <name>`), and map it in a binding: `akm bind <ref> --env KEY=secret:<ref>`"
      })
    }
    if (!VALUE_ADAPTERS.has(adapter.id)) {
      return yield* new Conflict({ message: `bundle '${bundle}' is read by the ${adapter.id} adapter, which has no ${folder} folder`, hint: "keep env files and secrets in an akm or dotenv bundle" })
    }
    const doc = yield* index.resolve(toStored({ bundle, conceptId }))
    const indexedFile = doc?.files[0] === undefined ? undefined : doc.files[0].slice(info.root.length + 1).split("\\").join("/")
    const target: WriteTarget = { bundle, root: info.root, file: indexedFile ?? (kind === "env" ? `${conceptId}.env` : conceptId), ref: toStored({ bundle, conceptId }) }
    return target
  })

/** Reads a value (never from argv), strips one trailing newline, caps it at 5 MiB. */
const readValue = (source: ValueSource, what: string) =>
  Effect.gen(function* () {
    const bytes = yield* (yield* EnvFiles).readValue(source, MAX_VALUE_BYTES + 2)
    const end = bytes.length >= 2 && bytes[bytes.length - 2] === 13 && bytes[bytes.length - 1] === 10 ? bytes.length - 2 : bytes.length >= 1 && bytes[bytes.length - 1] === 10 ? bytes.length - 1 : bytes.length
    const value = bytes.subarray(0, end)
    if (value.length > MAX_VALUE_BYTES) {
      return yield* new UsageError({ message: `the ${what} is larger than 5 MiB; nothing was written`, hint: "keep large files outside akm and store their path or a reference instead" })
    }
    return value
  })

/** After a write: the index learns the new keys or item, and the redactor the new value (spec 08 §2.1). */
const refreshIndex = (bundle: string) => Effect.asVoid(Effect.either(indexBundles({ bundle })))

/**
 * `akm env set <ref> KEY`: one env file rewritten with KEY's new value, in
 * place (temp file + fsync + rename, 0600) under the workspace lease — no
 * proposal, no diff, no blob. The event holds the ref, the key name and the
 * new file's hash. Bindings of this export approved at the old bytes follow
 * the operator's own change.
 */
export const envSet = Effect.fn("runtime.envSet")(function* (input: string, key: string, source: ValueSource) {
  if (!ENV_KEY.test(key)) {
    return yield* new UsageError({
      message: key.includes("=") ? "KEY=VALUE on the command line is refused: the value would land in shell history and the process list" : `'${key.slice(0, 64)}' is not an environment variable name`,
      hint: "name the key alone and pass the value on stdin, e.g. `printf %s \"$VALUE\" | akm env set <ref> KEY`, or with --from-file / --from-env"
    })
  }
  const target = yield* writeTarget(input, "env")
  const value = yield* readValue(source, "value")
  const text = decodeUtf8(value)
  if (text === undefined || text.includes("\0")) {
    return yield* new UsageError({ message: "the value is not UTF-8 text without NUL bytes, so it cannot be an environment value; nothing was written", hint: "store binary data as a secret: `akm secret set <ref> --from-file FILE`" })
  }
  const where = `${target.root}/${target.file}`
  let before: string | undefined
  const written = yield* (yield* EnvFiles).update(target.root, target.file, (current) => {
    const old = current === undefined ? "" : decodeUtf8(current)
    if (old === undefined) return Effect.fail(new EnvFileInvalid({ path: where, message: `${where} is not valid UTF-8 text; nothing was written`, hint: "save the file as UTF-8 first" }))
    const problem = parseEnvValues(old).problems.find((p) => p.kind !== "duplicate-key" || p.name === key)
    if (problem !== undefined) {
      return Effect.fail(new EnvFileInvalid({ path: where, message: `${where}:${problem.line}: the file has a line akm cannot edit safely (${problem.kind}${problem.name === undefined ? "" : ` ${problem.name}`}); nothing was written`, hint: "fix that line first (`akm lint` shows it)" }))
    }
    before = current === undefined ? undefined : sha256Hex(current)
    return Effect.succeed(new TextEncoder().encode(setEnvValue(old, key, text)))
  })
  const hash = sha256Hex(written)
  yield* recordEvent("env.set", target.ref, { key, hash })
  yield* refreshIndex(target.bundle)
  yield* followOwnChange(target.ref, before)
  return { ref: target.ref, key, file: where, hash }
})

/** `akm secret set <ref>`: one secret file (0600), written like `env set`; the event holds the ref and the file's hash. */
export const secretSet = Effect.fn("runtime.secretSet")(function* (input: string, source: ValueSource) {
  const target = yield* writeTarget(input, "secret")
  const value = yield* readValue(source, "secret")
  if (value.length === 0) return yield* new UsageError({ message: "the secret is empty; nothing was written", hint: "pipe the value on stdin, or use --from-file / --from-env" })
  yield* (yield* EnvFiles).update(target.root, target.file, () => Effect.succeed(value))
  const hash = sha256Hex(value)
  yield* recordEvent("secret.set", target.ref, { hash })
  yield* refreshIndex(target.bundle)
  return { ref: target.ref, file: `${target.root}/${target.file}`, hash, bytes: value.length }
})

/** Bindings of `ref` approved at the bytes the operator just replaced now approve the new bytes (after the reindex). */
const followOwnChange = (ref: string, before: string | undefined) =>
  Effect.gen(function* () {
    if (before === undefined) return
    const store = yield* Bindings
    const following = (yield* store.forExport(ref)).filter((b) => b.digest === before)
    if (following.length === 0) return
    const located = yield* exportOf(ref)
    const definition = yield* (yield* Redactor).redact(located.export.definition)
    for (const b of following) yield* store.approve(b.alias, { digest: located.export.digest, definition, approvedAt: b.approvedAt })
  }).pipe(Effect.either, Effect.asVoid)
