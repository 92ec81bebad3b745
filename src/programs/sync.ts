import { createHash } from "node:crypto"
import { Clock, Effect, Either, Option } from "effect"
import { isWritable, type AkmConfig } from "../domain/Config.js"
import type { FileChange } from "../domain/FileChange.js"
import { CrashPoints } from "../services/CrashPoints.js"
import { Credentials } from "../services/Credentials.js"
import { GitHistory } from "../services/GitHistory.js"
import { GitSync, type Checkout, type FileMove, type RemoteAccess, type SyncPlan } from "../services/GitSync.js"
import { Transaction } from "../services/Transaction.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { bundleNotFound } from "./bundle/notFound.js"
import { refreshIndex } from "./proposals/accept.js"
import { recoverWrites } from "./proposals/recover.js"

/**
 * `akm sync [bundle…] [--push] [--dry-run] [--allow-insecure]` (issue 26,
 * docs/decisions/0029-sync.md): shares a writable bundle that is a git
 * checkout. The upstream branch is fetched over https; a clean checkout is
 * fast-forwarded by the transaction engine (one FileChange[] from HEAD's
 * bytes to the tip's) and then the branch moves; akm's own commits not on
 * the remote are replayed on the tip through the engine. Anything else — the
 * user's own commits, uncommitted changes, a conflict — is refused with a
 * report and the checkout left as it was: sync never merges, rebases,
 * resets or stashes.
 */

export interface SyncInput {
  /** Bundle names; none = every writable bundle that is a git checkout. */
  readonly bundles: ReadonlyArray<string>
  readonly push: boolean
  readonly dryRun: boolean
  readonly allowInsecure: boolean
}

export type SyncAction = "up-to-date" | "fast-forward" | "replay" | "push" | "none" | "refused"

export interface SyncedBundle {
  readonly bundle: string
  /** What sync did (or, with --dry-run, would do). */
  readonly action: SyncAction
  /** The remote branch ("origin/main"), when the checkout was readable. */
  readonly upstream?: string
  /** The branch's commit before and after. */
  readonly from?: string
  readonly to?: string
  /** Commits fetched that were not in the checkout. */
  readonly incoming: number
  /** Bundle-relative paths written (or that would be). */
  readonly changed: ReadonlyArray<string>
  /** akm's own commits replayed on the fetched tip, or waiting to be pushed. */
  readonly commits: ReadonlyArray<{ readonly sha: string; readonly subject: string; readonly replayedAs?: string }>
  /** The commit pushed (--push). */
  readonly pushed?: string
  /** Why nothing was written, and what to do. */
  readonly reason?: string
  readonly hint?: string
  /** The paths or commits behind a refusal. */
  readonly details?: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

export interface SyncResult {
  readonly dryRun: boolean
  readonly bundles: ReadonlyArray<SyncedBundle>
  /** No bundle was refused. */
  readonly ok: boolean
}

const DEFAULT_TOKEN = "env:AKM_GIT_TOKEN"

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** A move from the bytes on disk to the tip's, with the before-hash of the bytes it replaces (R-TX-1). */
const fileChanges = (bundle: string, moves: ReadonlyArray<FileMove>): ReadonlyArray<FileChange> =>
  moves.map((m): FileChange => ({
    bundle,
    path: m.path,
    beforeHash: m.before === undefined ? null : sha256(m.before),
    ...(m.after === undefined ? { delete: true as const } : { after: m.after, ...(m.executable ? { mode: 0o755 } : {}) })
  }))

const short = (sha: string) => sha.slice(0, 12)

const base = (bundle: string) => ({ bundle, incoming: 0, changed: [], commits: [], warnings: [] })

const refusal = (bundle: string, reason: string, hint: string, extra: Partial<SyncedBundle> = {}): SyncedBundle => ({ ...base(bundle), ...extra, action: "refused", reason, hint })

/** A journal id: letters, digits, '.', '_' and '-'. */
const journalId = (bundle: string, tip: string, at: number, step: string) => `sync-${bundle.replace(/[^A-Za-z0-9._-]/g, "_")}-${short(tip)}-${at}-${step}`

/** The token for one bundle: its git.token reference, else AKM_GIT_TOKEN when set. */
const accessFor = (config: AkmConfig, bundle: string, allowInsecure: boolean) =>
  Effect.gen(function* () {
    const credentials = yield* Credentials
    const reference = config.bundles[bundle]?.git?.token
    const token = reference === undefined
      ? yield* credentials.firstAvailable([DEFAULT_TOKEN])
      : yield* credentials.resolve(reference)
    return { allowInsecure, token } satisfies RemoteAccess as RemoteAccess
  })

const syncOne = (config: AkmConfig, root: string | undefined, bundle: string, input: SyncInput) =>
  Effect.gen(function* () {
    const bundleConfig = config.bundles[bundle]!
    if (bundleConfig.source.kind === "git") {
      return refusal(bundle, "it is a read-only git bundle: akm keeps a pinned copy of the remote, not a checkout of yours", `refresh it with \`akm bundle update ${bundle}\`; to share knowledge through git, clone the repository and add the folder (\`akm bundle add ./checkout\`)`)
    }
    if (bundleConfig.source.kind !== "filesystem") return refusal(bundle, `it is a ${bundleConfig.source.kind} bundle, not a git checkout`, `refresh it with \`akm bundle update ${bundle}\``)
    if (!isWritable(bundleConfig)) return refusal(bundle, "it is read-only (writable: false)", "akm sync shares writable bundles; use `git pull` for a folder akm only reads")
    if (root === undefined) return refusal(bundle, "it is not installed", `run \`akm bundle update ${bundle}\` first`)

    const gitSync = yield* GitSync
    const opened = yield* Effect.either(gitSync.open(root))
    if (Either.isLeft(opened)) return refusal(bundle, opened.left.reason, opened.left.hint)
    const checkout = opened.right
    const upstream = `${checkout.remote}/${checkout.remoteRef.replace(/^refs\/heads\//, "")}`
    const known = { upstream, from: checkout.head }

    const access = yield* Effect.either(accessFor(config, bundle, input.allowInsecure))
    if (Either.isLeft(access)) return refusal(bundle, `the token ${access.left.reference} is unavailable: ${access.left.message}`, access.left.hint, known)
    const tip = yield* Effect.either(gitSync.fetch(checkout, access.right))
    if (Either.isLeft(tip)) return refusal(bundle, tip.left.reason, tip.left.hint, known)
    const resumed = yield* Effect.either(resumeInterrupted(bundle, checkout, input, known))
    if (Either.isLeft(resumed)) return refusal(bundle, resumed.left.reason, resumed.left.hint, known)
    if ("action" in resumed.right) return resumed.right
    const current = resumed.right.checkout
    const plan = yield* Effect.either(gitSync.plan(current, tip.right))
    if (Either.isLeft(plan)) return refusal(bundle, plan.left.reason, plan.left.hint, known)
    const outcome = yield* carryOut(bundle, current, plan.right, access.right, input, { upstream, from: current.head })
    return resumed.right.warnings.length === 0 ? outcome : { ...outcome, from: checkout.head, warnings: [...resumed.right.warnings, ...outcome.warnings] } satisfies SyncedBundle as SyncedBundle
  })

/**
 * An earlier sync that died after the engine wrote the tip's files and
 * before the branch moved (decision 0037) left a record of the move. The
 * engine's recovery (run first) has rolled an uncommitted set back, so the
 * bytes say what happened: the work tree at the recorded target → the move
 * is finished now (branch, index, index rows); at the start → nothing
 * happened and the record goes; anything else → the files changed since,
 * refused with the paths and the record kept. A branch that moved on since
 * makes the record meaningless; it is dropped with a warning.
 */
const resumeInterrupted = (bundle: string, checkout: Checkout, input: SyncInput, known: { upstream: string; from: string }) =>
  Effect.gen(function* () {
    const gitSync = yield* GitSync
    const intent = yield* gitSync.intent(checkout)
    const unchanged = { checkout, warnings: [] as ReadonlyArray<string> }
    if (intent === undefined) return unchanged
    const settle = input.dryRun ? Effect.void : gitSync.settle(checkout)
    if (intent.branch !== checkout.branch || (checkout.head !== intent.from && checkout.head !== intent.to)) {
      yield* settle
      return { checkout, warnings: [`the record of an interrupted sync (${short(intent.from)} → ${short(intent.to)}) was dropped: the branch has moved since`] }
    }
    const state = yield* gitSync.workTree(checkout, intent.from, intent.to)
    if (checkout.head === intent.to) {
      // The branch moved before the crash; only the index entries may lag behind.
      if (state.at === "to" && !input.dryRun) yield* gitSync.finish(checkout, intent.from, intent.to)
      yield* settle
      return unchanged
    }
    if (state.at === "from") {
      // The engine rolled the files back: the sync never happened.
      yield* settle
      return unchanged
    }
    if (state.at === "neither") {
      return refusal(bundle, `an earlier sync was interrupted after writing the files of ${short(intent.to)} and before moving branch '${checkout.branch}', and ${state.paths.length === 1 ? "a file has" : `${state.paths.length} files have`} changed since`, `bring ${state.paths.length === 1 ? "it" : "them"} back to the bytes of ${short(intent.to)} or of ${short(intent.from)} (compare with \`git diff ${short(intent.to)} -- <path>\`), then \`akm sync\`; akm never resets your work`, { ...known, details: state.paths })
    }
    if (input.dryRun) {
      return { ...base(bundle), ...known, action: "fast-forward", to: intent.to, warnings: [`an earlier sync was interrupted after writing the files of ${short(intent.to)}; \`akm sync\` moves branch '${checkout.branch}' there first`] } satisfies SyncedBundle as SyncedBundle
    }
    yield* gitSync.finish(checkout, intent.from, intent.to)
    yield* gitSync.settle(checkout)
    const indexed = yield* refreshIndex([bundle])
    return { checkout: yield* gitSync.open(checkout.root), warnings: [`finished an interrupted sync: branch '${checkout.branch}' moved from ${short(intent.from)} to ${short(intent.to)}`, ...indexed] }
  })

const carryOut = (bundle: string, checkout: Checkout, plan: SyncPlan, access: RemoteAccess, input: SyncInput, known: { upstream: string; from: string }) =>
  Effect.gen(function* () {
    const gitSync = yield* GitSync
    const transaction = yield* Transaction
    const facts = { ...known, incoming: "incoming" in plan ? plan.incoming : 0 }
    switch (plan.kind) {
      case "conflict":
        return refusal(bundle, `akm's own commits change files the remote changed too: ${plan.paths.join(", ")}`, "nothing was changed; bring the two together with git yourself (e.g. `git pull --rebase`), then `akm sync`", { ...facts, details: plan.paths })
      case "diverged":
        return refusal(bundle, `the remote moved on and ${plan.foreign.length === 1 ? "a commit of yours is" : `${plan.foreign.length} commits of yours are`} not on it`, "akm never merges or rebases your commits; bring them together with git (`git pull --rebase` or `git merge`), then `akm sync`", { ...facts, details: plan.foreign.map((c) => `${short(c.sha)} ${c.subject}`) })
      case "outside":
        return refusal(bundle, `the remote changed files akm does not write (outside the bundle folder, links or submodules): ${plan.paths.join(", ")}`, "update the checkout with git (`git pull --ff-only`), then `akm sync`", { ...facts, details: plan.paths })
      case "up-to-date":
        return { ...base(bundle), ...facts, action: "up-to-date", to: checkout.head } satisfies SyncedBundle as SyncedBundle
      case "ahead": {
        const commits = plan.own.map((c) => ({ sha: c.sha, subject: c.subject }))
        if (!input.push) {
          return { ...base(bundle), ...facts, action: "none", to: checkout.head, commits, warnings: commits.length === 0 ? [] : [`${commits.length} of akm's commits are not on ${known.upstream} yet; share them with \`akm sync --push\``] } satisfies SyncedBundle as SyncedBundle
        }
        if (plan.foreign.length > 0) {
          return refusal(bundle, `the branch holds ${plan.foreign.length === 1 ? "a commit of yours" : `${plan.foreign.length} commits of yours`} that ${plan.foreign.length === 1 ? "is" : "are"} not on the remote; akm pushes only its own`, "push your commits with `git push` (they carry akm's too), or leave --push off", { ...facts, details: plan.foreign.map((c) => `${short(c.sha)} ${c.subject}`) })
        }
        if (input.dryRun) return { ...base(bundle), ...facts, action: "push", to: checkout.head, commits } satisfies SyncedBundle as SyncedBundle
        const pushed = yield* Effect.either(gitSync.push(checkout, access))
        if (Either.isLeft(pushed)) return refusal(bundle, pushed.left.reason, pushed.left.hint, { ...facts, commits })
        return { ...base(bundle), ...facts, action: "push", to: pushed.right, commits, pushed: pushed.right } satisfies SyncedBundle as SyncedBundle
      }
      case "fast-forward":
      case "replay": {
        const dirty = yield* Effect.either(Effect.flatMap(GitHistory, (h) => h.workingChanges(checkout.root)))
        if (Either.isLeft(dirty)) return refusal(bundle, dirty.left.reason, dirty.left.hint, facts)
        if (dirty.right.changes.length > 0) {
          const paths = dirty.right.changes.map((c) => `${c.path} (${c.status})`)
          return refusal(bundle, `the checkout has changes that are not committed (${paths.length === 1 ? "1 file" : `${paths.length} files`}); sync moves the branch only from a clean checkout`, "commit them (or set git.commit: true so akm commits what it accepts), then `akm sync`; akm never stashes or resets your work", { ...facts, details: paths })
        }
        const own = plan.kind === "replay" ? plan.own : []
        const commits = own.map((c) => ({ sha: c.sha, subject: c.subject }))
        const changed = [...new Set([...plan.changes.map((c) => c.path), ...own.flatMap((c) => c.changes.map((m) => m.path))])].sort()
        const planned = { ...base(bundle), ...facts, action: plan.kind, changed, commits }
        if (input.dryRun) return { ...planned, to: plan.tip } satisfies SyncedBundle as SyncedBundle
        const at = yield* Clock.currentTimeMillis
        // One set: the work tree from HEAD's bytes to the tip's; the commits exist already, so no commit and no validation.
        const forwardId = journalId(bundle, plan.tip, at, "ff")
        // The move is recorded before any file is written, so a crash before it is made can be finished (decision 0037).
        const intended = yield* Effect.either(gitSync.intend(checkout, { branch: checkout.branch, from: checkout.head, to: plan.tip, transaction: forwardId }))
        if (Either.isLeft(intended)) return refusal(bundle, intended.left.reason, intended.left.hint, facts)
        const applied = yield* Effect.either(transaction.apply({ id: forwardId, changes: fileChanges(bundle, plan.changes), gitCommit: false, validate: false }))
        if (Either.isLeft(applied)) {
          yield* Effect.ignore(gitSync.settle(checkout))
          return refusal(bundle, applied.left.message, "nothing was changed; check the files with `git status`, then `akm sync` again", facts)
        }
        yield* transaction.acknowledge(forwardId, "apply")
        // The engine's crash seam, when one is provided (the crash tests' entry point): the gap decision 0037 closes.
        const points = yield* Effect.serviceOption(CrashPoints)
        if (Option.isSome(points)) points.value.reach("sync-before-advance")
        const advanced = yield* Effect.either(gitSync.advance(checkout, checkout.head, plan.tip))
        if (Either.isLeft(advanced)) {
          // The branch did not move: put the files back so the checkout is as it was.
          const undone = yield* Effect.either(transaction.revert({ id: `${forwardId}-undo`, changes: applied.right.changes, ...(applied.right.createdDirs === undefined ? {} : { createdDirs: applied.right.createdDirs }) }))
          if (Either.isRight(undone)) {
            yield* transaction.acknowledge(`${forwardId}-undo`, "revert")
            yield* Effect.ignore(gitSync.settle(checkout))
          }
          return refusal(bundle, advanced.left.reason, Either.isRight(undone) ? advanced.left.hint : `${advanced.left.hint}; the files were left at ${short(plan.tip)} — check them with \`git status\``, facts)
        }
        const settled = yield* Effect.either(gitSync.settle(checkout))
        const replayed: Array<{ sha: string; subject: string; replayedAs?: string }> = []
        const warnings: Array<string> = Either.isLeft(settled) ? [`the record of this sync could not be removed (${settled.left.reason}); the next \`akm sync\` removes it`] : []
        for (const [index, commit] of own.entries()) {
          if (commit.changes.length === 0) {
            replayed.push({ sha: commit.sha, subject: commit.subject })
            continue
          }
          const id = journalId(bundle, plan.tip, at, `r${index + 1}`)
          const result = yield* Effect.either(transaction.apply({ id, changes: fileChanges(bundle, commit.changes), message: commit.message, gitCommit: true, validate: false }))
          if (Either.isLeft(result)) {
            const rest = own.slice(index).map((c) => `${short(c.sha)} ${c.subject}`)
            return refusal(bundle, `replaying akm's commit ${short(commit.sha)} failed: ${result.left.message}`, `the branch is at ${short(plan.tip)} plus the commits replayed before it; the rest are still reachable (${rest.join("; ")}) — apply them with git (\`git cherry-pick\`)`, { ...facts, to: plan.tip, changed, commits: replayed, details: rest })
          }
          yield* transaction.acknowledge(id, "apply")
          warnings.push(...(result.right.warnings ?? []))
          replayed.push({ sha: commit.sha, subject: commit.subject, ...(result.right.gitCommits[0] === undefined ? {} : { replayedAs: result.right.gitCommits[0].sha }) })
        }
        warnings.push(...(yield* refreshIndex([bundle])))
        const head = replayed.findLast((c) => c.replayedAs !== undefined)?.replayedAs ?? plan.tip
        const done = { ...planned, to: head, commits: replayed, warnings }
        if (!input.push || replayed.every((c) => c.replayedAs === undefined)) {
          if (replayed.some((c) => c.replayedAs !== undefined)) warnings.push(`akm's replayed commits are not on ${known.upstream} yet; share them with \`akm sync --push\``)
          return done satisfies SyncedBundle as SyncedBundle
        }
        const pushed = yield* Effect.either(gitSync.push(checkout, access))
        if (Either.isLeft(pushed)) return { ...done, warnings: [...warnings, `the push failed: ${pushed.left.reason} (${pushed.left.hint})`] } satisfies SyncedBundle as SyncedBundle
        return { ...done, pushed: pushed.right } satisfies SyncedBundle as SyncedBundle
      }
    }
  })

export const sync = Effect.fn("sync")(function* (input: SyncInput) {
  const workspace = yield* WorkspaceConfig
  const config = yield* workspace.read
  const lock = yield* workspace.readLock
  for (const name of input.bundles) if (config.bundles[name] === undefined) return yield* bundleNotFound(name, Object.keys(config.bundles))
  // Recovery writes: a dry run leaves even that to the next command.
  if (!input.dryRun) yield* recoverWrites()
  const named = input.bundles.length > 0
  const names = named ? [...new Set(input.bundles)] : Object.keys(config.bundles).filter((n) => config.bundles[n]!.source.kind === "filesystem" && isWritable(config.bundles[n]!)).sort()
  const bundles: Array<SyncedBundle> = []
  for (const name of names) {
    const outcome = yield* syncOne(config, lock.bundles[name]?.root, name, input)
    // Unnamed: a writable folder that is no git checkout is simply not shared.
    if (!named && outcome.action === "refused" && outcome.upstream === undefined && /not inside a git checkout/.test(outcome.reason ?? "")) continue
    bundles.push(outcome)
  }
  return { dryRun: input.dryRun, bundles, ok: bundles.every((b) => b.action !== "refused") } satisfies SyncResult as SyncResult
})
