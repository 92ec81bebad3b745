import { Context, Data, type Effect } from "effect"
import type { FileChange } from "../domain/FileChange.js"

/** The change set was not applied; nothing was written (R-TX-1). */
export class TransactionRefused extends Data.TaggedError("TransactionRefused")<{
  /** The bundle-relative path that made the set fail. */
  readonly path: string
  readonly reason: string
  readonly hint: string
}> {
  override get message(): string {
    return `${this.path}: ${this.reason}`
  }
}

/**
 * The one way akm writes into a bundle root (spec 05 §2): a set of FileChanges
 * whose before-hashes are verified first; the whole set applies or nothing does.
 */
export class Transaction extends Context.Tag("akm/Transaction")<Transaction, {
  readonly apply: (changes: ReadonlyArray<FileChange>, options: { readonly root: string }) => Effect.Effect<{ readonly applied: number }, TransactionRefused>
}>() {}
