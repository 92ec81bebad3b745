import { Effect } from "effect"
import type { FileChange } from "../../domain/FileChange.js"
import { sha256Hex } from "../../domain/Proposal.js"
import { secretKindOfPath } from "../../domain/SecretFiles.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { Transaction } from "../../services/Transaction.js"
import { resolveBundle } from "../scan.js"

const encoder = new TextEncoder()

/**
 * Keeps the bytes each update or delete was made against in the engine's
 * content-addressed store, under their before-hash: the base
 * `akm proposal refresh` merges from once the file has moved on. Best effort —
 * a base that cannot be kept (a binary file, a file already edited again)
 * only means that proposal can later be refused by refresh, never that the
 * proposal itself fails. Env and secret files are never kept.
 */
export const keepBases = (changes: ReadonlyArray<FileChange>) =>
  Effect.gen(function* () {
    const files = yield* BundleFiles
    const transaction = yield* Transaction
    for (const change of changes) {
      const hash = change.beforeHash
      if (hash === null) continue
      yield* Effect.gen(function* () {
        if ((yield* transaction.blob(hash)) !== undefined) return
        const { info, adapter } = yield* resolveBundle(change.bundle)
        // An env or secret file's bytes hold values: they are never copied anywhere for a proposal that may never be accepted.
        if (secretKindOfPath(change.path, adapter.id) !== undefined) return
        const bytes = encoder.encode(yield* files.readText(info.root, change.path))
        if (sha256Hex(bytes) === hash) yield* transaction.keep(bytes)
      }).pipe(Effect.catchAll(() => Effect.void))
    }
  })

/** The kept base of a change (its before-bytes), or undefined when none was kept. */
export const baseOf = (hash: string) => Effect.flatMap(Transaction, (t) => t.blob(hash))
