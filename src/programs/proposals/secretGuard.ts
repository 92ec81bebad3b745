import { Effect } from "effect"
import { UsageError } from "../../domain/Errors.js"
import type { FileChange } from "../../domain/FileChange.js"
import { envValueLines, secretKindOfPath } from "../../domain/SecretFiles.js"

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

const textOf = (bytes: string | Uint8Array): string | undefined => {
  if (typeof bytes === "string") return bytes
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

/**
 * A proposal never carries a secret value (R-DB-2): its bytes are stored in
 * state.db and shown by `proposal diff`. An env file may be proposed with key
 * names only; a secret file not at all. Values go through `akm env set` and
 * `akm secret set`, which read them from stdin. Messages name the file and
 * line numbers, never the text.
 */
export const refuseSecretValues = (change: FileChange, adapter: string) =>
  Effect.gen(function* () {
    if (change.after === undefined) return
    const kind = secretKindOfPath(change.path, adapter)
    if (kind === undefined) return
    const where = `${change.bundle}//${change.path}`
    if (kind === "secret") {
      return yield* new UsageError({
        message: `${where} holds a secret: akm never writes secret files through a proposal`,
        hint: "set it with `akm secret set <ref>`, which reads the value from stdin"
      })
    }
    const text = textOf(change.after)
    const lines = text === undefined ? [] : envValueLines(text)
    if (text === undefined || lines.length > 0) {
      return yield* new UsageError({
        message: `${where} is an env file: a proposal may carry key names only, never values${lines.length === 0 ? "" : ` (line${lines.length === 1 ? "" : "s"} ${lines.slice(0, 5).join(", ")}${lines.length > 5 ? ", …" : ""})`}`,
        hint: "propose the keys as KEY= lines, then set each value with `akm env set <ref> KEY` (read from stdin)"
      })
    }
  })

/** A local file named like a secret (`.env`, `id_rsa`, `*.pem`, …) is not copied into an ordinary item. */
export const refuseSecretSource = (file: string) =>
  new UsageError({
    message: `${file} is named like a secret file: akm does not copy its contents into a bundle item`,
    hint: "set env values with `akm env set <ref> KEY` and secrets with `akm secret set <ref>` (both read stdin); rename the file if it holds no secret"
  })
