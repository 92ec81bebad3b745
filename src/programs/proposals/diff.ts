import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff"
import { Effect } from "effect"
import { actionOf, sha256Hex, type FileAction, type Proposal } from "../../domain/Proposal.js"
import { secretKindOfPath } from "../../domain/SecretFiles.js"
import { decodeUtf8 } from "../../domain/Utf8.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { Transaction } from "../../services/Transaction.js"
import { resolveBundle } from "../scan.js"
import { bundlesOf, findProposal } from "./lookup.js"

/** One file of a proposal with its unified diff. */
export interface FileDiff {
  readonly bundle: string
  readonly path: string
  readonly action: FileAction
  readonly beforeHash: string | null
  /** null = the change deletes the file. */
  readonly afterHash: string | null
  /** Unified diff (empty for binary files and when the old bytes are unavailable). */
  readonly diff: string
  readonly binary?: true
  /** Why the diff is incomplete. */
  readonly note?: string
}

/** Text when the bytes are UTF-8 without NUL, else undefined (binary). */
const textOf = (bytes: string | Uint8Array): string | undefined => {
  if (typeof bytes === "string") return bytes
  if (bytes.includes(0)) return undefined
  return decodeUtf8(bytes)
}

/** The old side of a change: its text, binary, or undefined when no copy of the bytes is left. */
type Before = { readonly text: string | undefined } | undefined

const asBefore = (bytes: string | Uint8Array): Before => ({ text: textOf(bytes) })

/**
 * The bytes a change was made against: the engine's backup when it holds
 * them (accepted proposals), else the file on disk if it still has them.
 */
const beforeOf = (bundle: string, path: string, hash: string) =>
  Effect.gen(function* () {
    const backup = yield* (yield* Transaction).blob(hash)
    if (backup !== undefined) return asBefore(backup)
    const files = yield* BundleFiles
    const { info } = yield* resolveBundle(bundle)
    if ((yield* files.hash(info.root, [path])).hash !== hash) return undefined
    return yield* files.readText(info.root, path).pipe(
      Effect.map(asBefore),
      Effect.catchAll((failure) => Effect.succeed<Before>(failure.code === "binary" || failure.code === "invalid-encoding" ? { text: undefined } : undefined))
    )
  }).pipe(Effect.orElseSucceed((): Before => undefined))

/** The adapter id of a bundle, when it is still configured. */
const adapterOf = (bundle: string) => resolveBundle(bundle).pipe(Effect.map((resolved): string | undefined => resolved.adapter.id), Effect.orElseSucceed(() => undefined))

/** Per-file unified diffs of a proposal (the `diff` package). Paths carry the bundle when it spans several. */
export const fileDiffs = Effect.fn("proposal.fileDiffs")(function* (proposal: Proposal) {
  const several = bundlesOf(proposal).length > 1
  const diffs: Array<FileDiff> = []
  for (const change of proposal.changes) {
    const name = several ? `${change.bundle}/${change.path}` : change.path
    const action = actionOf(change)
    const base = { bundle: change.bundle, path: change.path, action, beforeHash: change.beforeHash, afterHash: change.after === undefined ? null : sha256Hex(change.after) }
    if (secretKindOfPath(change.path, yield* adapterOf(change.bundle)) !== undefined) {
      // Neither side is shown: an env file's old bytes hold values, and a proposal made before values were refused may too.
      diffs.push({ ...base, diff: "", note: "env and secret files are never shown: their values stay out of diffs" })
      continue
    }
    const before = change.beforeHash === null ? asBefore("") : yield* beforeOf(change.bundle, change.path, change.beforeHash)
    if (before === undefined) {
      diffs.push({ ...base, diff: "", note: "the old bytes are not available: the file changed since the proposal was made and no backup holds them" })
      continue
    }
    const oldText = before.text
    const newText = change.after === undefined ? "" : textOf(change.after)
    const oldName = action === "create" ? "/dev/null" : `a/${name}`
    const newName = action === "delete" ? "/dev/null" : `b/${name}`
    if (oldText === undefined || newText === undefined) {
      diffs.push({ ...base, diff: `Binary files ${oldName} and ${newName} differ\n`, binary: true })
      continue
    }
    diffs.push({ ...base, diff: createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, { headerOptions: FILE_HEADERS_ONLY }) })
  }
  return diffs as ReadonlyArray<FileDiff>
})

/** `akm proposal diff`: the proposal's unified diff. */
export const proposalDiff = Effect.fn("proposal.diff")(function* (idOrPrefix: string) {
  const proposal = yield* findProposal(idOrPrefix)
  const files = yield* fileDiffs(proposal)
  return { id: proposal.id, diff: files.map((f) => f.diff).join(""), files }
})
