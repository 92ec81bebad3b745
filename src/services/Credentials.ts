import { Context, type Effect, type Redacted } from "effect"

/** A credential reference that could not be resolved: names the reference, never a value. */
export class CredentialUnavailable {
  readonly _tag = "CredentialUnavailable"
  constructor(readonly reference: string, readonly message: string, readonly hint: string) {}
}

/**
 * Resolves credential references (spec 01 §6) for every consumer — generators,
 * embeddings, the MCP token, git and npm over HTTP, PostgreSQL: `env:VAR`
 * reads the process environment, `secret:<ref>` reads a secret item of a
 * mounted bundle. Values travel as Effect `Redacted` so no log, error or
 * output can print them.
 */
export class Credentials extends Context.Tag("akm/Credentials")<Credentials, {
  /** `env:VAR` or `secret:<ref>`; anything else is refused (a literal key in config is never accepted). */
  readonly resolve: (reference: string) => Effect.Effect<Redacted.Redacted<string>, CredentialUnavailable>
  /** The first of `references` that resolves, or undefined when none is set (for default chains). */
  readonly firstAvailable: (references: ReadonlyArray<string>) => Effect.Effect<Redacted.Redacted<string> | undefined>
}>() {}
