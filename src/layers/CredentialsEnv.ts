import { Effect, Layer, Redacted } from "effect"
import { CredentialUnavailable, Credentials } from "../services/Credentials.js"

/**
 * A Credentials layer that resolves `env:VAR` only — what `akm mcp --http`
 * needs for its token until the live layer (with `secret:<ref>`) lands;
 * `secret:` references are refused with a hint to use `env:`.
 */
export const CredentialsEnv = (env: Readonly<Record<string, string | undefined>> = process.env) =>
  Layer.succeed(Credentials, {
    resolve: (reference) => resolve(env, reference),
    firstAvailable: (references) =>
      Effect.gen(function* () {
        for (const reference of references) {
          const value = yield* Effect.option(resolve(env, reference))
          if (value._tag === "Some") return value.value
        }
        return undefined
      })
  })

const resolve = (env: Readonly<Record<string, string | undefined>>, reference: string) => {
  if (reference.startsWith("env:")) {
    const name = reference.slice("env:".length)
    const value = env[name]
    return value === undefined || value === ""
      ? Effect.fail(new CredentialUnavailable(reference, `${name} is not set`, `export ${name}=<token> before starting akm`))
      : Effect.succeed(Redacted.make(value))
  }
  if (reference.startsWith("secret:")) {
    return Effect.fail(new CredentialUnavailable(reference, "secret: references are not supported here yet", "use env:VAR and export the variable"))
  }
  return Effect.fail(new CredentialUnavailable(reference, "a credential must be a reference (env:VAR or secret:<ref>)", "e.g. akm config set mcp.token env:AKM_MCP_TOKEN"))
}
