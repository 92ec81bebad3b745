import { FileSystem } from "@effect/platform/FileSystem"
import { Effect, FiberRef } from "effect"
import * as path from "node:path"
import type { AuthoringRefused } from "../../domain/Adapter.js"
import { ConfigInvalid, Conflict, UsageError } from "../../domain/Errors.js"
import { expandUserPath } from "../../domain/Paths.js"
import { secretKindOfName } from "../../domain/SecretFiles.js"
import { autoApplies, autoApplyPolicy, shortId, type ProposalStatus } from "../../domain/Proposal.js"
import { decodeUtf8 } from "../../domain/Utf8.js"
import { unshared, unsharedUnless, WalksUnderLease } from "../../services/BundleFiles.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { ValidationFailed } from "../../services/Transaction.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { fileProblem } from "../fileProblem.js"
import { outcomeError, proposalAccept } from "./accept.js"
import { now } from "./lookup.js"
import { recoveredNothing, recoverWrites } from "./recover.js"
import { propose, type ProposeInput } from "./propose.js"

/** What remember, import and create report. */
export interface DirectResult {
  readonly id: string
  readonly status: ProposalStatus
  readonly title: string
  readonly bundle: string
  /** The item the change created, when the adapter indexes it as one. */
  readonly ref?: string
  /** Absolute path of the (first) file written or proposed. */
  readonly path: string
  readonly files: ReadonlyArray<string>
  /** Set when the proposal waits for review. */
  readonly hint?: string
}

/**
 * Where a write goes: `--bundle`, else the config's `defaultBundle`, else a
 * usage error naming both ways to fix it (exit 2).
 */
export const writeTarget = Effect.fn("proposal.writeTarget")(function* (flag: string | undefined) {
  if (flag !== undefined) return flag
  const config = yield* (yield* WorkspaceConfig).read
  if (config.defaultBundle !== undefined) return config.defaultBundle
  return yield* new UsageError({
    message: "no bundle to write to",
    hint: "pass --bundle <name>, or set a default once: akm config set defaultBundle <name>"
  })
})

/** An adapter's refusal to author a request, as the error a user sees (exit 1). */
export const authoringConflict = (refused: AuthoringRefused) => new Conflict({ message: refused.reason, hint: refused.hint })

/** `policy.autoApply` from config.yaml (R-IMP-9; default [mechanical]). */
const autoApplyClasses = Effect.gen(function* () {
  const workspace = yield* WorkspaceConfig
  const policy = autoApplyPolicy((yield* workspace.read).policy)
  if ("reason" in policy) {
    return yield* new ConfigInvalid({ file: workspace.paths.configFile, path: "policy.autoApply", reason: policy.reason, hint: "e.g. policy: { autoApply: [mechanical] }; [] sends every change to review" })
  }
  return policy
})

/**
 * The direct-apply commands (remember, import, create, lint --fix): every
 * change is a proposal (same audit trail, revertible); it is accepted in the
 * same step when `policy.autoApply` lists its change class, and otherwise
 * waits in the queue for `akm proposal accept`. Inside `Transaction.hold`
 * the accept leaves the index refresh to the caller (`refreshIndex`, after
 * the hold).
 */
export const proposeAndApply = Effect.fn("proposal.direct")(function* (input: ProposeInput & { readonly bundle: string; readonly root: string }) {
  const classes = yield* autoApplyClasses
  // Before a proposal is made: a damaged journal stops the command without leaving one behind. A recovery
  // that touched no file keeps the caller's shared listing (remember's name choice serves the evaluation).
  if (autoApplies(input.changeClass, classes)) yield* unsharedUnless(recoverWrites(), recoveredNothing)
  const { proposal, refs } = yield* propose(input)
  const applies = autoApplies(proposal.changeClass, classes)
  if (applies && proposal.evaluation?.verdict === "fail") {
    // Nobody will review a change that was meant to apply at once: it fails now, with its findings kept.
    const diagnostics = proposal.evaluation.diagnostics.filter((d) => d.severity === "error")
    const error = new ValidationFailed({ diagnostics, hint: `nothing was written; see \`akm proposal show ${shortId(proposal.id)}\`` })
    yield* (yield* ProposalStore).decide(proposal.id, { from: ["pending"], to: "failed", at: yield* now, by: "policy", reason: error.message, outcome: { error: outcomeError(error) } })
    return yield* error
  }
  // Inside Transaction.hold the engine's check takes the listing walked under the lease (the engine forgets it
  // before writing), and the index refresh is the holder's, once it lets the lease go (decision 0049).
  const held = yield* FiberRef.get(WalksUnderLease)
  const accept = held ? proposalAccept(proposal.id, { by: "policy", refreshIndex: false }) : unshared(proposalAccept(proposal.id, { by: "policy" }))
  const status = applies ? (yield* accept).status : proposal.status
  const first = proposal.changes[0]!
  return {
    id: proposal.id,
    status,
    title: proposal.title,
    bundle: input.bundle,
    ...(refs[0] === undefined ? {} : { ref: refs[0] }),
    path: path.join(input.root, first.path),
    files: proposal.changes.map((c) => c.path),
    ...(applies ? {} : { hint: `waiting for review (policy.autoApply does not list ${proposal.changeClass}): akm proposal show ${shortId(proposal.id)}, then akm proposal accept ${shortId(proposal.id)}` })
  } satisfies DirectResult as DirectResult
})

/** A local file given on the command line: a path (~ and relative ones resolved) or a file:// URL. */
export const localFile = (given: string, caller: { readonly cwd: string; readonly home: string }) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    let file: string
    if (given.startsWith("file:")) {
      const url = yield* Effect.try({ try: () => new URL(given), catch: () => new UsageError({ message: `'${given}' is not a valid file URL`, hint: "use file:///absolute/path or a plain path" }) })
      if (url.host !== "" && url.host !== "localhost") return yield* new UsageError({ message: `'${given}' names another host`, hint: "only local files can be read" })
      file = decodeURIComponent(url.pathname)
    } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(given)) {
      return yield* new UsageError({ message: `'${given}' is not a local file`, hint: "akm reads local files only (a path or a file:// URL); download it first" })
    } else {
      file = expandUserPath(given, caller.cwd, caller.home)
    }
    const unreadable = (reason: string) => new UsageError({ message: `cannot read ${file}: ${reason}`, hint: "check the path" })
    const info = yield* fs.stat(file).pipe(Effect.mapError((e) => unreadable(fileProblem(e))))
    if (info.type !== "File") return yield* unreadable("not a regular file")
    if (Number(info.size) > MAX_LOCAL_BYTES) return yield* unreadable(`${info.size} bytes, over the ${MAX_LOCAL_BYTES}-byte limit`)
    const bytes = yield* fs.readFile(file).pipe(Effect.mapError((e) => unreadable(fileProblem(e))))
    // The name that decides whether it is a secret file is the link target's as well as the given one's.
    const real = yield* fs.realPath(file).pipe(Effect.orElseSucceed(() => file))
    return { file, bytes, secretName: secretKindOfName(file) !== undefined || secretKindOfName(real) !== undefined }
  })

/** The walk's per-file limit: a bigger file could not be indexed anyway. */
const MAX_LOCAL_BYTES = 10 * 1024 * 1024

/** UTF-8 text of the bytes, or undefined when they are not text. */
export const decodeText = (bytes: Uint8Array): string | undefined => {
  if (bytes.includes(0)) return undefined
  return decodeUtf8(bytes)
}
