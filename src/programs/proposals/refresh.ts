import { FileSystem } from "@effect/platform/FileSystem"
import { Effect, Option } from "effect"
import * as path from "node:path"
import type { Diagnostic } from "../../domain/Diagnostic.js"
import { Conflict, UsageError } from "../../domain/Errors.js"
import type { FileChange } from "../../domain/FileChange.js"
import { IMPROVE_RECIPES } from "../../domain/Improve.js"
import { CONFLICT_END, CONFLICT_SPLIT, CONFLICT_START, conflictLines, mergeText } from "../../domain/Merge.js"
import { actionOf, sha256Hex, shortId, type Proposal, type ProposalStatus } from "../../domain/Proposal.js"
import { shellCommand } from "../../domain/ShellQuote.js"
import { decodeUtf8 } from "../../domain/Utf8.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { Improve } from "../../services/Improve.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { resolveBundle } from "../scan.js"
import { baseOf } from "./bases.js"
import { decodeText, localFile } from "./direct.js"
import { findProposal, now } from "./lookup.js"
import { propose } from "./propose.js"

/** What became of one file of the refreshed proposal. */
export type RefreshedFileResult =
  /** The file is as the proposal expected: the change is carried over as reviewed. */
  | "unchanged"
  /** The file moved on and the change merged cleanly onto it. */
  | "merged"
  /** The file already holds what the proposal wanted: nothing left to do there. */
  | "already-applied"
  /** The change and the file's own edits overlap (or the file was deleted or edited under a delete): needs a decision. */
  | "conflict"
  /** Resolved by hand with --file. */
  | "resolved"
  /** Written again by the recipe that made the proposal, from the current bytes. */
  | "regenerated"

export interface RefreshedFile {
  readonly bundle: string
  readonly path: string
  readonly result: RefreshedFileResult
  readonly conflicts?: number
}

export interface RefreshResult {
  /** The proposal that was refreshed. */
  readonly from: { readonly id: string; readonly title: string; readonly status: ProposalStatus }
  /**
   * refreshed: a new pending proposal carries the change (clean merge);
   * conflict: a new pending proposal carries conflict markers and cannot be accepted until resolved;
   * current: nothing moved, the proposal applies as it is;
   * already-applied: the files already hold the change, nothing is left to propose;
   * regenerated: the improve recipe that made it ran again on the current files and its new proposal supersedes it.
   */
  readonly outcome: "refreshed" | "conflict" | "current" | "already-applied" | "regenerated"
  readonly proposal?: { readonly id: string; readonly title: string; readonly status: ProposalStatus }
  readonly files: ReadonlyArray<RefreshedFile>
  /** regenerated: the improve run that wrote the new proposal. */
  readonly run?: { readonly id: string; readonly modelCalls: number }
  readonly hint?: string
}

export interface RefreshInput {
  /** `path=@local/file`: the resolved bytes for a path of the proposal (resolves a conflict by hand). */
  readonly files?: ReadonlyArray<string> | undefined
  readonly cwd?: string | undefined
  readonly home?: string | undefined
  /** A regeneration's improve run starts no attempt after this long (as `akm improve --budget-ms`). */
  readonly budgetMs?: number | undefined
}

/** A file as it is now: its hash (null = absent) and its text (undefined = absent or not text). */
interface Current {
  readonly hash: string | null
  readonly text: string | undefined
}

const currentOf = (bundle: string, relative: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const files = yield* BundleFiles
    const { info } = yield* resolveBundle(bundle)
    const exists = yield* fs.exists(path.join(info.root, relative)).pipe(Effect.orElseSucceed(() => false))
    if (!exists) return { hash: null, text: undefined } satisfies Current as Current
    const hash = (yield* files.hash(info.root, [relative])).hash
    const text = yield* files.readText(info.root, relative).pipe(Effect.map((t): string | undefined => t), Effect.orElseSucceed(() => undefined))
    return { hash, text } satisfies Current as Current
  })

const textOf = (bytes: string | Uint8Array | undefined): string | undefined =>
  bytes === undefined ? undefined : typeof bytes === "string" ? bytes : bytes.includes(0) ? undefined : decodeUtf8(bytes)

const isGenerated = (recipe: string): boolean => (IMPROVE_RECIPES as ReadonlyArray<string>).includes(recipe)

/** Why a proposal cannot be merged forward, with what to do instead. */
const refusal = (proposal: Proposal, key: string, reason: string) => {
  const ref = proposal.evidence.find((e) => e.ref !== undefined)?.ref
  const regenerate = isGenerated(proposal.recipe)
    ? `regenerate it from the current files: ${shellCommand("akm improve", "--recipe", proposal.recipe, ...(ref === undefined ? [] : ["--ref", ref]), "--force")}`
    : "make the change again from the current files (akm proposal new, or the command that made it)"
  return new Conflict({
    message: `proposal ${shortId(proposal.id)} cannot be refreshed: ${key}: ${reason}`,
    hint: `${regenerate}, then \`akm proposal reject ${shortId(proposal.id)} --reason superseded\``
  })
}

/**
 * The item a proposal's improve recipe can be run for again: a revise names
 * its target ref in its evidence. A learn proposal has no ref to aim a run
 * at (a run plans every topic), so it is merged like a hand-made one.
 */
const regenerationRef = (proposal: Proposal): string | undefined =>
  proposal.recipe === "revise" ? proposal.evidence.find((e) => e.ref !== undefined && e.kind !== "refreshed-from")?.ref : undefined

/** Why a regeneration did not give a new proposal; the old one is left as it was. */
const notRegenerated = (proposal: Proposal, ref: string, reason: string, retry: "refresh" | "force" | "none") => {
  const reject = `\`akm proposal reject ${shortId(proposal.id)} --reason superseded\``
  return new Conflict({
    message: `proposal ${shortId(proposal.id)} was not regenerated: ${reason}; it is left as it was`,
    hint: retry === "refresh"
      ? `try again later with \`akm proposal refresh ${shortId(proposal.id)}\`, or reject it with ${reject}`
      : retry === "force"
        ? `${shellCommand("akm improve", "--recipe", proposal.recipe, "--ref", ref, "--force")} asks again; or reject it with ${reject}`
        : `reject it with ${reject} if it is no longer wanted; \`akm improve runs\` shows the run`
  })
}

/**
 * A stale proposal improve generated is written again by its recipe (issue
 * 26): one `revise` run for its ref through the Improve service, on the
 * current bytes and the evidence open now, with the usual gates — settled
 * inputs are not asked again (R-IMP-3), the sandbox gate verifies the
 * candidate, policy.autoApply decides as for any run (R-IMP-9), the improve
 * lease is taken (never waited for). The new proposal supersedes the old
 * one; anything else leaves the old one untouched and says why.
 */
const regenerate = (proposal: Proposal, ref: string, improve: Improve["Type"], input: RefreshInput) =>
  Effect.gen(function* () {
    const store = yield* ProposalStore
    const ran = yield* improve.run({ recipe: "revise", ref, limit: 1, skipIfLocked: true, ...(input.budgetMs === undefined ? {} : { budgetMs: input.budgetMs }) })
    if (ran._tag === "Locked") return yield* notRegenerated(proposal, ref, `another improve run holds the lease (${ran.holder})`, "refresh")
    const target = ran.run.targets.find((t) => t.recipe === "revise" && t.target === ref)
    if (target === undefined) return yield* notRegenerated(proposal, ref, `no corrective evidence about ${ref} is open any more, so its recipe has nothing to work from`, "none")
    let nextId = target.proposalId
    if (nextId === undefined && target.outcome === "skipped" && target.fingerprint !== undefined) {
      // The same inputs were attempted already (R-IMP-3): a pending proposal from them is the regeneration.
      nextId = (yield* store.withFingerprint(target.fingerprint)).find((p) => p.id !== proposal.id && (p.status === "pending" || p.status === "accepted"))?.id
    }
    const next = nextId === undefined || nextId === proposal.id ? undefined : yield* store.get(nextId)
    if (next === undefined || (next.status !== "pending" && next.status !== "accepted")) {
      const why = target.outcome === "packet"
        ? `the generator wrote work packet ${target.packetId ?? ""} (${target.reason ?? "an agent's candidate"}); submit it, then reject this proposal`
        : `its recipe ${target.outcome}${target.reason === undefined ? "" : `: ${target.reason}`}`
      return yield* notRegenerated(proposal, ref, why, target.outcome === "generation-failed" ? "refresh" : target.outcome === "skipped" && target.reason?.includes("--force") === true ? "force" : "none")
    }
    const nextShort = shortId(next.id)
    const at = yield* now
    const closed = yield* store.decide(proposal.id, { from: ["pending", "failed"], to: "rejected", at, by: "refresh", reason: `superseded by proposal ${nextShort} (regenerated by its ${proposal.recipe} recipe; akm proposal refresh)`, outcome: { note: `regenerated into ${next.id}` } })
    if (!closed.moved) {
      return yield* new Conflict({
        message: `proposal ${shortId(proposal.id)} became ${closed.status ?? "unknown"} while it was regenerated; the new proposal ${nextShort} stays pending`,
        hint: `compare them with \`akm proposal show ${nextShort}\` and reject the one not wanted`
      })
    }
    return {
      from: { id: proposal.id, title: proposal.title, status: proposal.status },
      outcome: "regenerated",
      proposal: { id: next.id, title: next.title, status: next.status },
      files: next.changes.map((c) => ({ bundle: c.bundle, path: c.path, result: "regenerated" as const })),
      run: { id: ran.run.id, modelCalls: ran.run.modelCalls },
      hint: next.status === "accepted"
        ? `policy.autoApply applied it; see \`akm proposal show ${nextShort}\``
        : `review it with \`akm proposal diff ${nextShort}\`, then \`akm proposal accept ${nextShort}\``
    } satisfies RefreshResult as RefreshResult
  })

const conflictFinding = (change: FileChange, message: string, line?: number): Diagnostic => ({
  code: "merge-conflict",
  severity: "error",
  path: change.path,
  message,
  ...(line === undefined ? {} : { line })
})

/** The change carried onto the current file, or why it cannot be. */
interface Carried {
  readonly change?: FileChange
  readonly result: RefreshedFileResult
  readonly conflicts?: number
  readonly findings: ReadonlyArray<Diagnostic>
}

const carry = (proposal: Proposal, change: FileChange, current: Current) =>
  Effect.gen(function* () {
    const key = `${change.bundle}//${change.path}`
    const action = actionOf(change)
    if (current.hash === change.beforeHash) return { change, result: "unchanged", findings: [] } satisfies Carried as Carried
    if (action === "delete") {
      if (current.hash === null) return { result: "already-applied", findings: [] } satisfies Carried as Carried
      // Deleting bytes nobody reviewed would lose the upstream edit: shown, but not acceptable as it is.
      return {
        change: { ...change, beforeHash: current.hash },
        result: "conflict",
        conflicts: 1,
        findings: [conflictFinding(change, "the file changed since the proposal deleted it; deleting it now would drop those edits — check them, then delete it again by hand or reject this proposal")]
      } satisfies Carried as Carried
    }
    const ours = textOf(change.after)
    if (ours === undefined) return yield* refusal(proposal, key, "a binary file changed since; only text can be merged")
    if (current.hash === null) {
      // The proposal edits a file that was deleted since: keep its bytes visible, as a conflict to decide.
      const text = `${CONFLICT_START} proposal ${shortId(proposal.id)}\n${ours.endsWith("\n") || ours === "" ? ours : `${ours}\n`}${CONFLICT_SPLIT}\n${CONFLICT_END} current (the file was deleted)\n`
      return {
        change: { bundle: change.bundle, path: change.path, beforeHash: null, after: text, ...(change.mode === undefined ? {} : { mode: change.mode }) },
        result: "conflict",
        conflicts: 1,
        findings: [conflictFinding(change, "the file was deleted since the proposal was made; recreate it with the proposal's bytes or drop the change", 1)]
      } satisfies Carried as Carried
    }
    if (current.text === undefined) return yield* refusal(proposal, key, "the file is no longer text; only text can be merged")
    let base: string
    if (change.beforeHash === null) {
      // A create whose path exists now: both sides added the file, merged from an empty base.
      base = ""
    } else {
      const kept = yield* baseOf(change.beforeHash)
      if (kept === undefined) return yield* refusal(proposal, key, "the bytes it was made from were not kept (a proposal made before akm kept them), so there is no base to merge from")
      const text = textOf(kept)
      if (text === undefined) return yield* refusal(proposal, key, "the bytes it was made from are not text; only text can be merged")
      base = text
    }
    if (ours === current.text) return { result: "already-applied", findings: [] } satisfies Carried as Carried
    const merged = mergeText(base, ours, current.text, { ours: `proposal ${shortId(proposal.id)}`, base: "base (what the proposal was made from)", theirs: "current" })
    if (merged.text === current.text) return { result: "already-applied", findings: [] } satisfies Carried as Carried
    const carried: FileChange = { bundle: change.bundle, path: change.path, beforeHash: current.hash, after: merged.text, ...(change.mode === undefined ? {} : { mode: change.mode }) }
    if (merged.conflicts === 0) return { change: carried, result: "merged", findings: [] } satisfies Carried as Carried
    return {
      change: carried,
      result: "conflict",
      conflicts: merged.conflicts,
      findings: conflictLines(merged.text).map((line) => conflictFinding(change, "the proposal and the current file change the same lines; edit the resolved bytes and give them with `akm proposal refresh <id> --file path=@resolved`", line))
    } satisfies Carried as Carried
  })

const parseResolutions = (input: RefreshInput) =>
  Effect.gen(function* () {
    const resolved = new Map<string, string | Uint8Array>()
    for (const flag of input.files ?? []) {
      const at = flag.indexOf("=@")
      if (at <= 0 || at + 2 === flag.length) return yield* new UsageError({ message: `--file '${flag}' is not path=@local-file`, hint: "e.g. --file guides/setup.md=@./resolved.md" })
      const { bytes } = yield* localFile(flag.slice(at + 2), { cwd: input.cwd ?? process.cwd(), home: input.home ?? "" })
      resolved.set(flag.slice(0, at).normalize("NFC"), decodeText(bytes) ?? bytes)
    }
    return resolved
  })

/**
 * `akm proposal refresh <id>` (spec 05 R-TX-1, issue 26): carries a stale
 * proposal forward onto the current files by a three-way merge — base = the
 * before-bytes kept when the proposal was made, ours = its reviewed
 * after-bytes, theirs = the file now. The result is always a NEW pending
 * proposal that names the old one (evidence `refreshed-from`); it is never
 * applied here, because nobody has reviewed the merged bytes (R-TX-2). A
 * conflicting merge carries git-style markers and a `merge-conflict` error,
 * so accept refuses it until the resolved bytes are given with `--file`. The
 * old proposal is closed as superseded. A revise proposal improve made is
 * instead regenerated by its recipe when the Improve service is provided and
 * a generator configured (decision 0037); without one it is merged as above.
 */
export const proposalRefresh = Effect.fn("proposal.refresh")(function* (idOrPrefix: string, input: RefreshInput = {}) {
  const store = yield* ProposalStore
  const proposal = yield* findProposal(idOrPrefix)
  const short = shortId(proposal.id)
  if (proposal.status !== "pending" && proposal.status !== "failed") {
    return yield* new Conflict({
      message: `proposal ${short} is ${proposal.status}; only a pending or failed proposal can be refreshed`,
      hint: `see \`akm proposal show ${short}\``
    })
  }
  const resolutions = yield* parseResolutions(input)
  for (const target of resolutions.keys()) {
    if (!proposal.changes.some((c) => c.path === target)) {
      return yield* new UsageError({ message: `proposal ${short} does not change '${target}'`, hint: `--file names one of its paths: ${proposal.changes.map((c) => c.path).join(", ")}` })
    }
  }
  const priorConflicts = proposal.evaluation?.diagnostics.some((d) => d.code === "merge-conflict") === true
  const ref = regenerationRef(proposal)
  const improve = yield* Effect.serviceOption(Improve)
  if (ref !== undefined && Option.isSome(improve) && improve.value.generator.available && resolutions.size === 0) {
    let stale = priorConflicts
    for (const change of proposal.changes) if ((yield* currentOf(change.bundle, change.path)).hash !== change.beforeHash) stale = true
    if (stale) return yield* regenerate(proposal, ref, improve.value, input)
  }
  const carried: Array<Carried & { readonly bundle: string; readonly path: string }> = []
  let moved = false
  for (const change of proposal.changes) {
    const current = yield* currentOf(change.bundle, change.path)
    if (current.hash !== change.beforeHash) moved = true
    const resolved = resolutions.get(change.path)
    if (resolved !== undefined) {
      carried.push({ bundle: change.bundle, path: change.path, change: { bundle: change.bundle, path: change.path, beforeHash: current.hash, after: resolved, ...(change.mode === undefined ? {} : { mode: change.mode }) }, result: "resolved", findings: [] })
      continue
    }
    if (priorConflicts && proposal.evaluation?.diagnostics.some((d) => d.code === "merge-conflict" && d.path === change.path) === true && current.hash === change.beforeHash) {
      // Still the conflict it was: only resolved bytes can move it on.
      carried.push({ bundle: change.bundle, path: change.path, change, result: "conflict", findings: proposal.evaluation.diagnostics.filter((d) => d.code === "merge-conflict" && d.path === change.path) })
      continue
    }
    carried.push({ bundle: change.bundle, path: change.path, ...(yield* carry(proposal, change, current)) })
  }
  const files: Array<RefreshedFile> = carried.map((c) => ({ bundle: c.bundle, path: c.path, result: c.result, ...(c.conflicts === undefined ? {} : { conflicts: c.conflicts }) }))
  const from = { id: proposal.id, title: proposal.title, status: proposal.status }
  if (!moved && resolutions.size === 0 && proposal.status === "pending" && !priorConflicts) {
    return { from, outcome: "current", files, hint: `its files are as it expects: accept it as it is with \`akm proposal accept ${short}\`` } satisfies RefreshResult as RefreshResult
  }
  if (!moved && resolutions.size === 0 && priorConflicts) {
    return yield* new Conflict({
      message: `proposal ${short} still has merge conflicts and its files have not changed since`,
      hint: `write the resolved file and run \`akm proposal refresh ${short} --file <path>=@<resolved-file>\`, or reject it`
    })
  }
  const changes = carried.flatMap((c) => (c.change === undefined ? [] : [c.change]))
  const at = yield* now
  if (changes.length === 0) {
    yield* store.decide(proposal.id, { from: ["pending", "failed"], to: "rejected", at, by: "refresh", reason: "superseded: the files already hold its change (akm proposal refresh)" })
    return { from, outcome: "already-applied", files, hint: "nothing is left to propose" } satisfies RefreshResult as RefreshResult
  }
  const findings = carried.flatMap((c) => c.findings)
  const { proposal: next } = yield* propose({
    title: proposal.title,
    recipe: proposal.recipe,
    changeClass: proposal.changeClass,
    changes,
    evidence: [
      ...proposal.evidence.filter((e) => e.kind !== "refreshed-from"),
      { kind: "refreshed-from", id: proposal.id, hash: sha256Hex(JSON.stringify(changes.map((c) => [c.bundle, c.path, c.beforeHash]))), note: `refreshed from proposal ${short}` }
    ],
    findings
  })
  yield* store.decide(proposal.id, { from: ["pending", "failed"], to: "rejected", at, by: "refresh", reason: `superseded by proposal ${shortId(next.id)} (akm proposal refresh)`, outcome: { note: `refreshed into ${next.id}` } })
  const conflicted = findings.length > 0
  const nextShort = shortId(next.id)
  return {
    from,
    outcome: conflicted ? "conflict" : "refreshed",
    proposal: { id: next.id, title: next.title, status: next.status },
    files,
    hint: conflicted
      ? `see the conflict markers with \`akm proposal diff ${nextShort}\`; write the resolved file and run \`akm proposal refresh ${nextShort} --file <path>=@<resolved-file>\``
      : `review it with \`akm proposal diff ${nextShort}\`, then \`akm proposal accept ${nextShort}\``
  } satisfies RefreshResult as RefreshResult
})
