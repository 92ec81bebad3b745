import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer, Redacted } from "effect"
import { EnvFilesNode } from "../../src/layers/fs/EnvFilesNode.js"
import { CredentialsLive } from "../../src/layers/runtime/CredentialsLive.js"
import { WorkspaceConfigTemp } from "../../src/layers/test/AkmTest.js"
import { Credentials } from "../../src/services/Credentials.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"
import { tempDir } from "./tempDir.js"

// Credentials (spec 01 §6): env:VAR and secret:<ref>, values Redacted, errors naming references only.
const layer = CredentialsLive.pipe(Layer.provideMerge(EnvFilesNode), Layer.provideMerge(WorkspaceConfigTemp))

/** A workspace whose default bundle `mine` holds secrets/api (with a trailing newline, as an editor saves it). */
const withSecret = Effect.gen(function* () {
  const dir = yield* tempDir("creds-bundle")
  fs.mkdirSync(path.join(dir, "secrets"))
  fs.writeFileSync(path.join(dir, "secrets", "api"), "s3cret-value-123\n")
  const workspace = yield* WorkspaceConfig
  fs.mkdirSync(path.dirname(workspace.paths.configFile), { recursive: true })
  fs.writeFileSync(workspace.paths.configFile, `defaultBundle: mine\nbundles:\n  mine:\n    source:\n      kind: filesystem\n      path: ${JSON.stringify(dir)}\n`)
  return yield* Credentials
})

describe("CredentialsLive", () => {
  it.scoped("secret:<ref> reads the secret file, one trailing newline dropped; the folder and the bundle may be left out", () =>
    Effect.gen(function* () {
      const credentials = yield* withSecret
      for (const reference of ["secret:mine//secrets/api", "secret:mine//api", "secret:api"]) {
        expect(Redacted.value(yield* credentials.resolve(reference))).toBe("s3cret-value-123")
      }
      // Redacted: printing it shows no value.
      expect(String(yield* credentials.resolve("secret:api"))).not.toContain("s3cret")
    }).pipe(Effect.provide(layer)))

  it.scoped("env:VAR reads the environment; unset, missing and literal references fail naming the reference, never a value", () =>
    Effect.gen(function* () {
      const credentials = yield* withSecret
      process.env.AKM_TEST_CREDENTIAL = "from-the-environment"
      try {
        expect(Redacted.value(yield* credentials.resolve("env:AKM_TEST_CREDENTIAL"))).toBe("from-the-environment")
      } finally {
        delete process.env.AKM_TEST_CREDENTIAL
      }
      const unset = yield* Effect.flip(credentials.resolve("env:AKM_TEST_CREDENTIAL"))
      expect(unset.message).toContain("AKM_TEST_CREDENTIAL is not set")
      const missing = yield* Effect.flip(credentials.resolve("secret:mine//nope"))
      expect(missing.hint).toContain("akm secret set")
      const literal = yield* Effect.flip(credentials.resolve("sk-live-literal-key-0123456789"))
      expect(JSON.stringify(literal)).not.toContain("sk-live")
      expect(literal.message).toContain("never a literal value")
      // Default chains: the first that resolves.
      expect(Redacted.value((yield* credentials.firstAvailable(["env:AKM_TEST_CREDENTIAL", "secret:api"]))!)).toBe("s3cret-value-123")
      expect(yield* credentials.firstAvailable(["env:AKM_TEST_CREDENTIAL"])).toBeUndefined()
    }).pipe(Effect.provide(layer)))
})
