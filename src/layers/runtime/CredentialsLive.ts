import { Effect, Either, Layer, Redacted } from "effect"
import { parse } from "../../domain/Ref.js"
import { decodeUtf8 } from "../../domain/Utf8.js"
import { CredentialUnavailable, Credentials } from "../../services/Credentials.js"
import { EnvFiles } from "../../services/EnvFiles.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** A secret file holds the value and at most one trailing newline (as an editor saves it). */
const secretText = (bytes: Uint8Array): string | undefined => {
  const text = decodeUtf8(bytes)
  return text?.replace(/\r?\n$/, "")
}

/**
 * Credentials over the process environment (`env:VAR`) and the secret items
 * of the configured bundles (`secret:<ref>`, spec 01 §6). A secret ref names
 * the file under `secrets/`; the folder may be left out (`secret:team//api`
 * is `team//secrets/api`), and a short ref tries the default bundle, then
 * the bundles in config order. Values are returned Redacted; errors name the
 * reference only.
 */
export const CredentialsLive = Layer.effect(
  Credentials,
  Effect.gen(function* () {
    const workspace = yield* WorkspaceConfig
    const files = yield* EnvFiles

    const fromSecret = (reference: string, refText: string) =>
      Effect.gen(function* () {
        const unavailable = (message: string, hint: string) => new CredentialUnavailable(reference, message, hint)
        const parsed = parse(refText)
        if (Either.isLeft(parsed)) return yield* Effect.fail(unavailable(`'${reference}' is not a valid secret ref: ${parsed.left.reason}`, "write secret:<bundle>//secrets/<name>"))
        const ref = parsed.right
        const config = yield* Effect.orElseSucceed(workspace.read, () => undefined)
        const lock = yield* Effect.orElseSucceed(workspace.readLock, () => undefined)
        if (config === undefined) return yield* Effect.fail(unavailable(`cannot read the configuration to resolve '${reference}'`, "run `akm config validate`"))
        const names = Object.keys(config.bundles)
        const candidates = ref.bundle !== undefined ? [ref.bundle] : [...new Set([...(config.defaultBundle === undefined ? [] : [config.defaultBundle]), ...names])]
        const paths = ref.conceptId.startsWith("secrets/") ? [ref.conceptId] : [`secrets/${ref.conceptId}`, ref.conceptId]
        for (const bundle of candidates) {
          const configured = config.bundles[bundle]
          const root = lock?.bundles[bundle]?.root ?? (configured?.source.kind === "filesystem" ? configured.source.path : undefined)
          if (root === undefined) continue
          for (const rel of paths) {
            const bytes = yield* Effect.orElseSucceed(files.read(root, rel), () => undefined)
            if (bytes === undefined) continue
            const text = secretText(bytes)
            if (text === undefined) return yield* Effect.fail(unavailable(`the secret of '${reference}' is not valid UTF-8 text`, "set it again with `akm secret set`"))
            if (text === "") return yield* Effect.fail(unavailable(`the secret of '${reference}' is empty`, `set it with \`akm secret set ${refText}\``))
            return Redacted.make(text)
          }
        }
        return yield* Effect.fail(unavailable(`no secret '${refText}' in ${candidates.length === 0 ? "any configured bundle" : candidates.join(", ")}`, `set it with \`akm secret set ${refText}\` (the value from stdin), or list them with \`akm secret list\``))
      })

    const resolve = (reference: string): Effect.Effect<Redacted.Redacted<string>, CredentialUnavailable> => {
      if (reference.startsWith("env:")) {
        const name = reference.slice("env:".length)
        if (!ENV_NAME.test(name)) return Effect.fail(new CredentialUnavailable(reference, `'${reference}' does not name an environment variable`, "write env:VAR, e.g. env:AKM_GENERATOR_API_KEY"))
        return Effect.suspend(() => {
          const value = process.env[name]
          return value === undefined || value === ""
            ? Effect.fail(new CredentialUnavailable(reference, `the environment variable ${name} is not set`, `export ${name}, or use a secret:<ref> instead`))
            : Effect.succeed(Redacted.make(value))
        })
      }
      if (reference.startsWith("secret:")) return fromSecret(reference, reference.slice("secret:".length))
      return Effect.fail(new CredentialUnavailable(
        "(not a reference)",
        "a credential must be a reference — env:VAR or secret:<ref> — never a literal value",
        "store the value with `akm secret set <ref>` (from stdin) and write secret:<ref>, or export it and write env:VAR"
      ))
    }

    return Credentials.of({
      resolve,
      firstAvailable: (references) =>
        Effect.reduce(references, undefined as Redacted.Redacted<string> | undefined, (found, reference) =>
          found !== undefined ? Effect.succeed(found) : Effect.orElseSucceed(resolve(reference), () => undefined))
    })
  })
)
