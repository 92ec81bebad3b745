import * as fs from "node:fs"
import * as path from "node:path"
import { Clock, type Context, Effect, FiberRef, Layer, Option } from "effect"
import type { Diagnostic } from "../../domain/Diagnostic.js"
import { yieldIfSpent } from "../../domain/EventLoopSlice.js"
import type { WorkspaceUnavailable } from "../../domain/Errors.js"
import type { FileChange } from "../../domain/FileChange.js"
import type { WorkspacePaths } from "../../domain/Paths.js"
import { Adapters } from "../../services/Adapters.js"
import { BundleWriteLock } from "../../services/BundleWriteLock.js"
import { BundleFiles, CarriedListings, forgetSharedWalks, SharedWalks, sharedWalkKey, unshared, WalksUnderLease, type CarriedListing } from "../../services/BundleFiles.js"
import { ChangeValidator } from "../../services/ChangeValidator.js"
import { CrashPoints } from "../../services/CrashPoints.js"
import {
  StaleBeforeHash,
  Transaction,
  TransactionRefused,
  ValidationFailed,
  type AppliedChange,
  type CreatedDir,
  type ApplyRequest,
  type ApplyResult,
  type FinishedSet,
  type RecoveryReport,
  type ResolveRequest,
  type ResolveResult
} from "../../services/Transaction.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { AKM_TRAILER, commitExactPaths, findRepository } from "../git/ExactPathCommit.js"
import { workspaceLease } from "../sqlite/leaseEvents.js"
import { getBlob, putBlob, sweepBlobTemps } from "./transaction/BlobStore.js"
import { workspaceBundles, type BundleResolver, type TargetBundle } from "./transaction/Bundles.js"
import { crashPointsNone } from "./transaction/CrashPoints.js"
import { commitTemp, makeDirs, removeEmptyDirs, removeFile, replaceFile, writeTemp } from "./transaction/FileOps.js"
import {
  FINISHED_DIR,
  JOURNAL_FILE,
  listFinished,
  listTransactions,
  removeFinished,
  writeFinished,
  readJournal,
  readRetireRecord,
  removeRecord,
  RETIRE_FILE,
  transactionDir,
  writeJournal,
  writeRetireRecord,
  type Journal,
  type RetireRecord
} from "./transaction/Journal.js"
import { finishedId, inspectJournals, io, locateSafely as locateSafelyIn, unavailable, workspaceDirs } from "./transaction/Inspect.js"
import { holdsLease, withLease } from "./transaction/Lease.js"
import { finalTargets, removeTemps, rollBack, tempName, type LocatedJournal } from "./transaction/Recovery.js"
import { currentHash, idProblem, locate, lstatOrUndefined, readIfExists, sha256, workspaceStateProblem, type WorkspaceDirs } from "./transaction/Target.js"
import { newErrors } from "./transaction/Validation.js"

/**
 * The crash-safe transaction engine (spec 05 §2). `apply` runs, under the
 * workspace mutation lease: recovery of unfinished journals; containment and
 * before-hash checks (R-TX-1, R-TX-3); adapter validation of the overlay;
 * the journal; backups into the blob store; temp-file writes, then deletes;
 * the commit mark; exact-path git commits; removal of the journal. A failure
 * before the mark rolls the set back in-process; a crash before it is rolled
 * back by the next recovery, a crash after it rolled forward (R-TX-5).
 *
 * Steps 10 (index refresh) and 12 (outcome recording) are the caller's, after
 * `apply` returns: the files are final by then, and a crash before the caller
 * records anything leaves a tree the next index run refreshes.
 * docs/decisions/0004-transaction-engine.md explains the choices.
 */

export interface EngineOptions {
  readonly paths: Pick<WorkspacePaths, "txnDir" | "archiveDir" | "locksDir"> & Partial<Pick<WorkspacePaths, "configDir" | "dataDir" | "cacheDir">>
  readonly bundles: BundleResolver
  readonly files: BundleFiles["Type"]
  /** How long a writer waits for the lease (default 30 s). */
  readonly leaseWaitMillis?: number
  /** Age past which a lease is stale even with its process alive (default 10 min). */
  readonly leaseMaxAgeMillis?: number
  /** The fault-injecting seam (default: none). */
  readonly crashPoints?: CrashPoints["Type"]
  /** Step 5's validator (default: the touched items' own findings, read through `files`). */
  readonly validator?: ChangeValidator["Type"]
  /** Held inside the lease: other servers writing the same bundle folders (default: none). */
  readonly crossServer?: BundleWriteLock["Type"]
}

type Refusal = TransactionRefused | StaleBeforeHash
type Op = Journal["op"]

/** One target of a set, checked under the lease. */
interface Step {
  readonly bundle: TargetBundle
  readonly path: string
  readonly absolute: string
  readonly before: Uint8Array | undefined
  readonly beforeHash: string | null
  readonly beforeMode: number | undefined
  readonly after: Uint8Array | undefined
  readonly afterHash: string | null
  readonly mode: number
  readonly temp: string
  readonly missingDirs: ReadonlyArray<string>
}

const encoder = new TextEncoder()
const bytesOf = (after: string | Uint8Array): Uint8Array => (typeof after === "string" ? encoder.encode(after) : after)

const refused = (where: string, reason: string, hint: string) => new TransactionRefused({ path: where, reason, hint })

const shapeProblem = (change: FileChange): string | undefined => {
  if ((change.after === undefined) === (change.delete !== true)) return "a change needs either new bytes or delete, not both or neither"
  if (change.delete === true && change.beforeHash === null) return "a delete needs the before-hash of the file it removes"
  if (change.mode !== undefined && !(Number.isInteger(change.mode) && change.mode >= 0 && change.mode <= 0o7777)) return "the file mode is not a permission mode"
  return undefined
}

const staleHint = "the file changed since the change was made; regenerate the change from the current file or resolve it by hand"

/** Checks every change under the lease and reads what it replaces: the first problem refuses the whole set. */
const planSteps = (id: string, changes: ReadonlyArray<FileChange>, bundles: ReadonlyMap<string, TargetBundle>, dirs: WorkspaceDirs): ReadonlyArray<Step> | Refusal => {
  const seen = new Set<string>()
  const steps: Array<Step> = []
  const digest = sha256(encoder.encode(id)).slice(0, 12)
  for (const [index, change] of changes.entries()) {
    const bundle = bundles.get(change.bundle)!
    const shape = shapeProblem(change)
    if (shape !== undefined) return refused(change.path, shape, "this is a bug in the code that built the change")
    const key = `${change.bundle}\0${change.path}`
    if (seen.has(key)) return refused(change.path, "the change set touches this path twice", "merge the changes to one path into one")
    seen.add(key)
    const located = locate(bundle.root, change.path)
    if (typeof located === "string") return refused(change.path, located, "akm writes only regular files inside the bundle root, never through symbolic links nor into .git/, .hg/ or .svn/")
    const state = workspaceStateProblem(dirs, located.absolute)
    if (state !== undefined) return refused(change.path, state, "a bundle root must not hold akm's config, data or cache directory; move the bundle or the directory")
    const before = located.stat === undefined ? undefined : fs.readFileSync(located.absolute)
    const beforeHash = before === undefined ? null : sha256(before)
    if (beforeHash !== change.beforeHash) {
      return new StaleBeforeHash({ bundle: change.bundle, path: change.path, expected: change.beforeHash, actual: beforeHash, hint: staleHint })
    }
    const after = change.after === undefined ? undefined : bytesOf(change.after)
    const beforeMode = located.stat === undefined ? undefined : located.stat.mode & 0o7777
    steps.push({
      bundle,
      path: change.path,
      absolute: located.absolute,
      before,
      beforeHash,
      beforeMode,
      after,
      afterHash: after === undefined ? null : sha256(after),
      mode: change.mode ?? beforeMode ?? 0o644,
      temp: tempName(change.path, digest, index),
      missingDirs: located.missingDirs.map((d) => d)
    })
  }
  return steps
}

const journalOf = (id: string, op: Op, message: string | undefined, steps: ReadonlyArray<Step>, now: number, gitCommit?: boolean): Journal => {
  const bundles: Record<string, { root: string; gitCommit: boolean }> = {}
  const dirs = new Map<string, { bundle: string; path: string }>()
  for (const step of steps) {
    bundles[step.bundle.name] = { root: step.bundle.root, gitCommit: gitCommit ?? step.bundle.gitCommit }
    for (const dir of step.missingDirs) dirs.set(`${step.bundle.name}\0${dir}`, { bundle: step.bundle.name, path: dir })
  }
  return {
    version: 1,
    id,
    op,
    phase: "prepared",
    createdAt: new Date(now).toISOString(),
    pid: process.pid,
    ...(message === undefined ? {} : { message }),
    bundles,
    targets: steps.map((s) => ({
      bundle: s.bundle.name,
      path: s.path,
      beforeHash: s.beforeHash,
      afterHash: s.afterHash,
      ...(s.beforeMode === undefined ? {} : { beforeMode: s.beforeMode }),
      ...(s.beforeHash === null ? {} : { backup: s.beforeHash }),
      temp: s.temp
    })),
    // Parents sort before their children.
    createdDirs: [...dirs.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  }
}

const locatedOf = (journal: Journal, steps: ReadonlyArray<Step>): LocatedJournal => ({
  targets: steps.map((s, i) => ({ target: journal.targets[i]!, absolute: s.absolute, temp: path.join(s.bundle.root, s.temp) })),
  createdDirs: journal.createdDirs.map((d) => path.join(journal.bundles[d.bundle]!.root, d.path))
})

/**
 * Steps 6–9: journal, backups, writes, deletes, commit mark. Fails on an I/O
 * failure after rolling back what it wrote (a rollback that fails itself
 * leaves the journal for recovery). Each step is synchronous, in the same
 * order as ever, but the event loop may turn between two steps once the
 * slice is spent (decision 0053): a write set of many files, each with its
 * fsyncs, no longer blocks an MCP server's timers from start to end. The
 * whole set is uninterruptible, so an interruption waits for the commit mark
 * or the rollback exactly as the synchronous set did.
 */
const writeSet = (paths: EngineOptions["paths"], journal: Journal, steps: ReadonlyArray<Step>, crashPoint: (point: string) => void): Effect.Effect<void, WorkspaceUnavailable> => {
  const where = transactionDir(paths.txnDir, journal.id)
  /** One synchronous step; a throw is kept as it was, for the rollback below. */
  const step = (f: () => void) => Effect.zipRight(Effect.try({ try: f, catch: (error) => error }), yieldIfSpent)
  const writes = Effect.gen(function* () {
    for (const s of steps) {
      if (s.before === undefined) continue
      yield* step(() => {
        putBlob(paths.archiveDir, s.before!)
        crashPoint("backup")
      })
    }
    yield* step(() => makeDirs(journal.createdDirs.map((d) => path.join(journal.bundles[d.bundle]!.root, d.path))))
    for (const s of steps) {
      if (s.after === undefined) continue
      yield* step(() => {
        const temp = path.join(s.bundle.root, s.temp)
        writeTemp(temp, s.after!, s.mode)
        crashPoint("temp-written")
        commitTemp(temp, s.absolute)
        crashPoint("write")
      })
    }
    for (const s of steps) {
      if (s.after !== undefined) continue
      yield* step(() => {
        removeFile(s.absolute)
        crashPoint("delete")
      })
    }
    yield* step(() => {
      crashPoint("after-writes")
      writeJournal(paths.txnDir, { ...journal, phase: "committed" })
    })
  })
  // A mark that reached the disk despite the error stands; otherwise the set is undone now.
  const undo = (error: unknown) =>
    Effect.flatMap(
      Effect.try({
        try: () => {
          const onDisk = readJournal(paths.txnDir, journal.id)
          if (typeof onDisk === "object" && onDisk.phase === "committed") return true
          const problems = rollBack(locatedOf(journal, steps), paths.archiveDir)
          if (problems.length === 0) removeRecord(paths.txnDir, journal.id, JOURNAL_FILE)
          return false
        },
        catch: (rollbackError) => rollbackError
      }),
      (committed) => (committed ? Effect.void : Effect.fail(error))
    )
  return Effect.try({
    try: () => {
      writeJournal(paths.txnDir, journal)
      crashPoint("after-journal")
    },
    catch: (error) => error
  }).pipe(
    Effect.zipRight(yieldIfSpent),
    Effect.zipRight(Effect.catchAll(Effect.as(writes, true), (error) => Effect.as(undo(error), false))),
    // As before, a mark found on disk after an error returns at once, without this point.
    Effect.flatMap((written) => (written ? Effect.try({ try: () => crashPoint("after-commit-mark"), catch: (error) => error }) : Effect.void)),
    Effect.mapError((cause) => unavailable(where, cause)),
    Effect.uninterruptible
  )
}

/** Step 11 for every bundle of the set that commits to git; a failure is a warning, the files stay final. */
const commitToGit = (journal: Journal, located: LocatedJournal, crashPoint: (point: string) => void) =>
  Effect.gen(function* () {
    const commits: Array<{ bundle: string; sha: string }> = []
    const warnings: Array<string> = []
    // The trailer marks the commit as akm's own exact-path commit: `akm sync` replays only such commits (docs/decisions/0029-sync.md).
    const message = `${(journal.message ?? `akm: ${journal.op} ${journal.id}`).replace(/\s+$/, "")}\n\n${AKM_TRAILER}: ${journal.id}\n`
    const final = finalTargets(located)
    for (const [bundle, { root, gitCommit }] of Object.entries(journal.bundles)) {
      if (!gitCommit) continue
      const paths = final.filter((t) => t.target.bundle === bundle).map((t) => t.target.path)
      if (paths.length === 0) continue
      const at = yield* Clock.currentTimeMillis
      const outcome = yield* Effect.either(Effect.tryPromise(() => commitExactPaths(root, paths, message, at)))
      if (outcome._tag === "Left") warnings.push(`bundle '${bundle}': the git commit failed (${String(outcome.left.error)}); the files are changed but not committed`)
      else if (outcome.right !== undefined) commits.push({ bundle, sha: outcome.right.sha })
    }
    crashPoint("after-git-commit")
    return { commits, warnings }
  })

/** The walk a bundle's validation takes (its adapter's hidden-file choice). */
const walkOptionsOf = (bundle: TargetBundle) => ({ includeHidden: bundle.adapter.includeHidden ?? false })

/** A journal's targets as the AppliedChanges a caller records. */
const appliedOf = (journal: Journal): ReadonlyArray<AppliedChange> =>
  journal.targets.map((t) => ({ bundle: t.bundle, path: t.path, beforeHash: t.beforeHash, afterHash: t.afterHash, ...(t.backup === undefined ? {} : { backup: t.backup }) }))

export const makeTransactionEngine = (options: EngineOptions): Transaction["Type"] => {
  const { paths } = options
  const crashPoint = (options.crashPoints ?? crashPointsNone).reach
  const leaseFile = path.join(paths.locksDir, "mutation.lease")
  const leased = withLease({
    ...workspaceLease(leaseFile, "the workspace mutation lease", {
      waitMillis: options.leaseWaitMillis ?? 30_000,
      maxAgeMillis: options.leaseMaxAgeMillis ?? 600_000
    }),
    reentrant: true
  })
  const crossServer = options.crossServer ?? BundleWriteLock.none
  // Inside `hold` the lease and the cross-server lock are this fiber's already: taken once, reached once.
  const underLease = <A, E>(effect: Effect.Effect<A, E>) =>
    Effect.flatMap(holdsLease(leaseFile), (held) => (held ? leased(effect) : leased(crossServer.around(Effect.zipRight(Effect.sync(() => crashPoint("after-lease")), effect)))))

  /**
   * `Transaction.hold` (decision 0049): the lease for the whole of `effect`,
   * with a fresh shared listing walked under it (a listing shared before the
   * lease was taken is not under it, and is forgotten after, since the
   * effect may write).
   */
  const hold = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | WorkspaceUnavailable, R> =>
    Effect.flatMap(holdsLease(leaseFile), (held) =>
      held
        ? effect
        : Effect.contextWithEffect((context: Context.Context<R>) =>
          unshared(underLease(Effect.provide(Effect.locally(Effect.locally(effect, SharedWalks, new Map()), WalksUnderLease, true), context)))))
  // Compared as real paths: bundle roots are real paths too.
  const dirs = workspaceDirs(paths)
  /** A journal whose targets name workspace state is refused like one pointing outside its root. */
  const locateSafely = (journal: Journal, roots: ReadonlyMap<string, string>): LocatedJournal | string => locateSafelyIn(dirs, journal, roots)

  const resolveAll = (names: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const bundles = new Map<string, TargetBundle>()
      for (const name of names) if (!bundles.has(name)) bundles.set(name, yield* options.bundles(name))
      return bundles
    })

  /**
   * Removes directories a reverted set had created, deepest first, while they
   * are empty: only those below a bundle root that still resolves (never the
   * root, never a path that leaves it or is a link); one someone filled stays.
   */
  const removeCreatedDirs = (dirs: ReadonlyArray<CreatedDir>) =>
    Effect.gen(function* () {
      if (dirs.length === 0) return []
      const roots = yield* currentRoots([...new Set(dirs.map((d) => d.bundle))])
      const located = [...dirs]
        .filter((d) => d.path !== "" && d.path !== ".")
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
        .flatMap((d) => {
          const root = roots.get(d.bundle)
          const at = root === undefined ? "gone" : locate(root, d.path, "directory")
          return typeof at === "string" || at.absolute === root ? [] : [at.absolute]
        })
      // The files are reverted by now: a directory that cannot be removed is a warning, not a failure.
      const removed = yield* Effect.either(io(paths.txnDir, () => removeEmptyDirs(located)))
      return removed._tag === "Left" ? [`an empty directory the proposal created could not be removed (${removed.left.reason}); remove it by hand`] : []
    })

  /**
   * The validation's listings brought past this write (the written paths
   * stat-ed again, still under the lease), for the index refresh to take
   * instead of walking; a listing that cannot be relisted is dropped.
   */
  const relistWritten = (carried: Map<string, CarriedListing>, bundles: Iterable<TargetBundle>, changes: ReadonlyArray<FileChange>) => {
    for (const bundle of bundles) {
      const walkOptions = walkOptionsOf(bundle)
      const key = sharedWalkKey(bundle.root, walkOptions)
      const entry = carried.get(key)
      if (entry === undefined) continue
      const written = changes.filter((c) => c.bundle === bundle.name).map((c) => c.path)
      let result: ReturnType<NonNullable<BundleFiles["Type"]["relist"]>>
      try {
        result = options.files.relist?.(bundle.root, walkOptions, entry.result, written)
      } catch {
        result = undefined
      }
      if (result === undefined) carried.delete(key)
      else carried.set(key, { ...entry, result, written: true })
    }
  }

  /** Steps 1–11 for one set; the caller holds the lease. */
  const applyLocked = (request: ApplyRequest, op: Op, validate: boolean) =>
    Effect.gen(function* () {
      const badId = idProblem(request.id)
      if (badId !== undefined) return yield* refused(request.id, badId, "use the proposal id")
      if (fs.existsSync(path.join(transactionDir(paths.txnDir, request.id), JOURNAL_FILE))) {
        return yield* refused(request.id, "an unfinished transaction with this id exists", `recovery could not resolve it; inspect ${transactionDir(paths.txnDir, request.id)} and remove it once the files are right`)
      }
      if (request.changes.length === 0) return { id: request.id, changes: [], gitCommits: [] } satisfies ApplyResult as ApplyResult

      // Step 1: group by bundle; read-only bundles and adapters without an authoring path are refused.
      const bundles = yield* resolveAll(request.changes.map((c) => c.bundle))
      for (const bundle of bundles.values()) {
        if (!bundle.writable) return yield* refused(bundle.name, `bundle '${bundle.name}' is read-only`, "akm never writes into read-only bundles; copy the item into a writable bundle")
        if (!bundle.adapter.writable) return yield* refused(bundle.name, `the ${bundle.adapter.id} adapter of bundle '${bundle.name}' has no authoring path`, "write such bundles with their own tools")
        if (bundle.gitCommit && (yield* Effect.promise(() => findRepository(bundle.root))) === undefined) {
          return yield* refused(bundle.name, `bundle '${bundle.name}' asks for git commits (git.commit: true) but ${bundle.root} is not inside a git repository`, "run `git init` there or set git.commit to false")
        }
      }
      // Steps 2 and 4: containment and before-hashes, under the lease.
      const planned = yield* io(paths.txnDir, () => planSteps(request.id, request.changes, bundles, dirs))
      if (!Array.isArray(planned)) return yield* Effect.fail(planned as Refusal)
      const steps = planned as ReadonlyArray<Step>

      // Only a listing this validation walks under the lease is carried to the index refresh (decision 0038).
      const carried = yield* FiberRef.get(CarriedListings)
      for (const bundle of carried === undefined ? [] : bundles.values()) carried!.delete(sharedWalkKey(bundle.root, walkOptionsOf(bundle)))

      // Step 5: adapter validation of the overlay, on a walk under the lease: a listing shared inside `hold` was
      // walked under it (decision 0049); any other shared listing may predate it, so the check walks afresh.
      if (validate && request.validate !== false) {
        const errors: Array<Diagnostic> = []
        const underThisLease = yield* FiberRef.get(WalksUnderLease)
        for (const bundle of bundles.values()) {
          const changes = request.changes.filter((c) => c.bundle === bundle.name)
          const info = { name: bundle.name, root: bundle.root, writable: bundle.writable }
          const check = options.validator === undefined
            ? newErrors(options.files, info, bundle.adapter, changes)
            : Effect.map(options.validator.validate(info, bundle.adapter, changes), (found) => found.introduced.filter((d) => d.severity === "error"))
          errors.push(...(yield* (underThisLease ? check : Effect.locally(check, SharedWalks, undefined))))
        }
        if (errors.length > 0) return yield* new ValidationFailed({ diagnostics: errors, hint: "the changed files would not validate; fix the listed problems in the change — nothing was written" })
      }

      // Steps 6–9, then 11, then the journal goes. A listing shared under a held lease stops being the tree here.
      yield* forgetSharedWalks
      const journal = journalOf(request.id, op, request.message, steps, yield* Clock.currentTimeMillis, request.gitCommit)
      yield* writeSet(paths, journal, steps, crashPoint)
      const git = yield* commitToGit(journal, locatedOf(journal, steps), crashPoint)
      // The finished record outlives the journal until the caller has recorded the outcome.
      yield* io(paths.txnDir, () => writeFinished(paths.txnDir, { ...journal, phase: "committed" }))
      yield* io(paths.txnDir, () => removeRecord(paths.txnDir, request.id, JOURNAL_FILE))
      crashPoint("after-journal-removed")
      if (carried !== undefined) yield* Effect.sync(() => relistWritten(carried, bundles.values(), request.changes))
      return {
        id: request.id,
        changes: steps.map((s): AppliedChange => ({
          bundle: s.bundle.name,
          path: s.path,
          beforeHash: s.beforeHash,
          afterHash: s.afterHash,
          ...(s.beforeHash === null ? {} : { backup: s.beforeHash })
        })),
        gitCommits: git.commits,
        ...(git.warnings.length === 0 ? {} : { warnings: git.warnings }),
        ...(journal.createdDirs.length === 0 ? {} : { createdDirs: journal.createdDirs })
      } satisfies ApplyResult as ApplyResult
    })

  /** The current real roots of the bundles a journal names (a bundle that no longer resolves is absent). */
  const currentRoots = (names: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const roots = new Map<string, string>()
      for (const name of names) {
        const bundle = yield* Effect.either(options.bundles(name))
        if (bundle._tag === "Right") roots.set(name, bundle.right.root)
      }
      return roots
    })

  /** Moves a journal recovery could only partly resolve out of the way, kept for the user to inspect. */
  const setAside = (id: string) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => io(paths.txnDir, () => {
      const aside = path.join(paths.txnDir, ".unresolved")
      fs.mkdirSync(aside, { recursive: true, mode: 0o700 })
      fs.renameSync(path.join(transactionDir(paths.txnDir, id), JOURNAL_FILE), path.join(aside, `${id}-${now}.json`))
      removeRecord(paths.txnDir, id, JOURNAL_FILE)
    }))

  type Outcome = { readonly rolledBack?: string; readonly rolledForward?: string; readonly refused?: { id: string; reason: string; damaged?: true } }

  const recoverJournal = (id: string, journal: Journal) =>
    Effect.gen(function* () {
      yield* forgetSharedWalks
      const located = locateSafely(journal, yield* currentRoots(Object.keys(journal.bundles)))
      if (typeof located === "string") return { refused: { id, reason: `journal refused: ${located}`, damaged: true } } satisfies Outcome
      yield* io(paths.archiveDir, () => sweepBlobTemps(paths.archiveDir, journal.targets.flatMap((t) => (t.backup === undefined ? [] : [t.backup]))))
      if (journal.phase === "prepared") {
        const problems = yield* io(paths.txnDir, () => rollBack(located, paths.archiveDir))
        if (problems.length > 0) {
          yield* setAside(id)
          return { refused: { id, reason: `rolled back only partly: ${problems.join("; ")}` } } satisfies Outcome
        }
        yield* io(paths.txnDir, () => removeRecord(paths.txnDir, id, JOURNAL_FILE))
        return { rolledBack: id } satisfies Outcome
      }
      // Past the mark every write is done: finishing means the git commit and removing the journal.
      yield* io(paths.txnDir, () => removeTemps(located))
      yield* commitToGit(journal, located, crashPoint)
      yield* io(paths.txnDir, () => writeFinished(paths.txnDir, journal))
      yield* io(paths.txnDir, () => removeRecord(paths.txnDir, id, JOURNAL_FILE))
      return { rolledForward: id } satisfies Outcome
    })

  /** Resumes (or drops) the second phase of a two-phase move (R-TX-9). */
  const recoverRetire = (id: string, record: RetireRecord) =>
    Effect.gen(function* () {
      yield* forgetSharedWalks
      const drop = io(paths.txnDir, () => removeRecord(paths.txnDir, id, RETIRE_FILE))
      if (record.stage === "awaiting-publish") {
        const roots = yield* currentRoots([...new Set(record.published.map((p) => p.bundle))])
        const landed = record.published.every((p) => {
          const root = roots.get(p.bundle)
          const located = root === undefined ? "gone" : locate(root, p.path)
          if (typeof located === "string") return false
          const bytes = located.stat === undefined ? undefined : fs.readFileSync(located.absolute)
          return (bytes === undefined ? null : sha256(bytes)) === p.afterHash
        })
        if (!landed) {
          yield* drop
          return { rolledBack: id } satisfies Outcome
        }
      }
      const changes: Array<FileChange> = []
      for (const c of record.changes) {
        const after = c.afterBlob === undefined ? undefined : getBlob(paths.archiveDir, c.afterBlob)
        if (c.afterBlob !== undefined && after === undefined) {
          yield* drop
          return { refused: { id, reason: `the pending retire's new bytes for ${c.bundle}//${c.path} are missing from the archive; the published copy stays` } } satisfies Outcome
        }
        changes.push({ bundle: c.bundle, path: c.path, beforeHash: c.beforeHash, ...(after === undefined ? { delete: true as const } : { after }), ...(c.mode === undefined ? {} : { mode: c.mode }) })
      }
      const retired = yield* Effect.either(applyLocked({ id, changes, ...(record.message === undefined ? {} : { message: record.message }) }, "retire", true))
      if (retired._tag === "Right") {
        yield* drop
        return { rolledForward: id } satisfies Outcome
      }
      if (retired.left._tag === "WorkspaceUnavailable") return { refused: { id, reason: `the pending retire could not run yet: ${retired.left.reason}` } } satisfies Outcome
      yield* drop
      return { refused: { id, reason: `the pending retire cannot go ahead (${retired.left.message}); the published copy stays and the sources are kept` } } satisfies Outcome
    })

  /** R-TX-5 for every transaction directory; the caller holds the lease. */
  const recoverLocked = Effect.gen(function* () {
    const rolledBack: Array<string> = []
    const rolledForward: Array<string> = []
    const refusedIds: Array<{ id: string; reason: string; damaged?: true }> = []
    const record = (outcome: Outcome) => {
      if (outcome.rolledBack !== undefined) rolledBack.push(outcome.rolledBack)
      if (outcome.rolledForward !== undefined) rolledForward.push(outcome.rolledForward)
      if (outcome.refused !== undefined) refusedIds.push(outcome.refused)
    }
    // Journals first: a pending retire may go ahead only once its publish is final or rolled back.
    const ids = yield* io(paths.txnDir, () => listTransactions(paths.txnDir))
    const blocked = new Set<string>()
    for (const id of ids) {
      const badId = idProblem(id)
      if (badId !== undefined) {
        record({ refused: { id, reason: `not a transaction directory: ${badId}`, damaged: true } })
        blocked.add(id)
        continue
      }
      const journal = yield* io(paths.txnDir, () => readJournal(paths.txnDir, id))
      const outcome: Outcome = typeof journal === "string" ? { refused: { id, reason: journal, damaged: true } } : journal === undefined ? {} : yield* recoverJournal(id, journal)
      record(outcome)
      if (outcome.refused !== undefined) blocked.add(id)
    }
    for (const id of ids) {
      if (blocked.has(id)) continue
      const retire = yield* io(paths.txnDir, () => readRetireRecord(paths.txnDir, id))
      if (typeof retire === "string") record({ refused: { id, reason: retire, damaged: true } })
      else if (retire !== undefined) record(yield* recoverRetire(id, retire))
      // What a crash left before a journal was complete holds nothing that was applied.
      else yield* io(paths.txnDir, () => removeRecord(paths.txnDir, id, JOURNAL_FILE))
    }
    // A finished record that cannot be read would leave its proposal's record behind its bytes.
    for (const finished of yield* io(paths.txnDir, () => listFinished(paths.txnDir))) {
      if ("problem" in finished) record({ refused: { id: finishedId(finished.file), reason: `the record of a finished transaction is unreadable (${finished.problem})`, damaged: true } })
    }
    return { rolledBack, rolledForward, refused: refusedIds } satisfies RecoveryReport as RecoveryReport
  })

  /**
   * Recovery, then a refusal while any journal is damaged: a writer never goes
   * ahead past a transaction it could not account for (its files may be
   * half-written, and a later write could bury that).
   */
  const recoverOrRefuse = Effect.flatMap(recoverLocked, (report) => {
    const damaged = report.refused.find((r) => r.damaged === true)
    return damaged === undefined
      ? Effect.succeed(report)
      : Effect.fail(refused(
        damaged.id,
        `transaction ${damaged.id} was interrupted and its journal cannot be used (${damaged.reason}); akm writes nothing until it is resolved`,
        `run \`akm proposal recover ${damaged.id} --rollback\` to put its files back from the backups (or --forward to finish it); \`akm health\` lists such transactions`
      ))
  })

  const apply = (request: ApplyRequest) => underLease(Effect.zipRight(recoverOrRefuse, applyLocked(request, "apply", true)))

  /** Damaged transactions, read-only: what recovery would refuse, and unreadable finished records. */
  const inspect = inspectJournals(paths.txnDir, dirs, currentRoots)

  /** The bytes with a given hash: the archive, the caller's bytes, or a temp file the set left. */
  const bytesFor = (hash: string, offered: ReadonlyArray<Uint8Array>, temps: ReadonlyArray<string>): Uint8Array | undefined => {
    const archived = getBlob(paths.archiveDir, hash)
    if (archived !== undefined) return archived
    for (const bytes of offered) if (sha256(bytes) === hash) return bytes
    for (const temp of temps) {
      const bytes = readIfExists(temp)
      if (bytes !== undefined && sha256(bytes) === hash) return bytes
    }
    return undefined
  }

  /** `resolve`, under the lease: every provable file to the end asked for; the rest left and reported. */
  const resolveLocked = (request: ResolveRequest) =>
    Effect.gen(function* () {
      yield* forgetSharedWalks
      const { id, direction } = request
      const badId = idProblem(id)
      if (badId !== undefined) return yield* refused(id, badId, "use the transaction id `akm health` lists, or the proposal id")
      const read = yield* io(paths.txnDir, () => readJournal(paths.txnDir, id))
      const retire = yield* io(paths.txnDir, () => readRetireRecord(paths.txnDir, id))
      const finishedDamaged = (yield* io(paths.txnDir, () => listFinished(paths.txnDir))).filter((r) => "problem" in r && r.file.startsWith(`${id}.`))
      const journal = typeof read === "string" ? undefined : read
      if (read === undefined && retire === undefined && finishedDamaged.length === 0) {
        return yield* refused(id, `there is no unfinished transaction ${id}`, "`akm health` lists the transactions that need recovering")
      }
      type Target = { bundle: string; path: string; beforeHash: string | null; afterHash: string | null; beforeMode?: number | undefined; temp?: string; after?: Uint8Array }
      const targets: ReadonlyArray<Target> = journal?.targets ?? request.fallback?.targets ?? []
      const op: ResolveResult["op"] = journal?.op ?? request.fallback?.op ?? "unknown"
      const problems: Array<string> = []
      const restored: Array<string> = []
      const changes: Array<AppliedChange> = []
      if (journal === undefined && request.fallback === undefined && read !== undefined) {
        problems.push(`the journal of ${id} cannot be read and no proposal has this id, so akm cannot tell which files it touched: none was changed; check the bundles (e.g. git status)`)
      }
      const roots = yield* currentRoots([...new Set(targets.map((t) => t.bundle))])
      // The caller's bytes count even when the journal is readable (a forged one holds only hashes).
      const offered = (request.fallback?.targets ?? []).flatMap((t) => (t.after === undefined ? [] : [t.after]))
      const located = targets.map((t) => {
        const root = roots.get(t.bundle)
        if (root === undefined) return `bundle '${t.bundle}' is no longer configured`
        if (journal !== undefined && journal.bundles[t.bundle]?.root !== root) return `the journal names another root for '${t.bundle}'`
        const at = locate(root, t.path)
        if (typeof at === "string") return at
        return workspaceStateProblem(dirs, at.absolute) ?? { root, absolute: at.absolute }
      })
      // The engine's temp names: the journal's, and the ones it derives from the id and the target's index
      // (the same order as the proposal's changes), for when the journal is unreadable or lies.
      const idDigest = sha256(encoder.encode(id)).slice(0, 12)
      const temps = targets.flatMap((t, i) => {
        const at = located[i]
        if (typeof at === "string") return []
        return [...new Set([t.temp, tempName(t.path, idDigest, i)])].flatMap((name) => {
          if (name === undefined || !/^\.akm-tx-[0-9a-f]{12}-\d+\.tmp$/.test(path.posix.basename(name))) return []
          const temp = locate(at!.root, name)
          return typeof temp === "string" || temp.stat === undefined || path.dirname(temp.absolute) !== path.dirname(at!.absolute) ? [] : [temp.absolute]
        })
      })
      const digest = sha256(encoder.encode(`${id}/resolve`)).slice(0, 12)
      yield* io(paths.txnDir, () => {
        for (const [i, t] of targets.entries()) {
          const name = `${t.bundle}//${t.path}`
          const at = located[i]!
          if (typeof at === "string") {
            problems.push(`${name}: not touched (${at})`)
            continue
          }
          const want = direction === "rollback" ? t.beforeHash : t.afterHash
          const other = direction === "rollback" ? t.afterHash : t.beforeHash
          const current = currentHash(at.absolute)
          const applied = { bundle: t.bundle, path: t.path, beforeHash: direction === "rollback" ? t.afterHash : t.beforeHash, afterHash: want, ...(t.beforeHash === null ? {} : { backup: t.beforeHash }) }
          if (current === want) {
            changes.push(applied)
            continue
          }
          if (current !== other) {
            problems.push(`${name} changed since the interrupted transaction; left as it is`)
            continue
          }
          if (want === null) removeFile(at.absolute)
          else {
            const bytes = bytesFor(want, offered, temps)
            if (bytes === undefined) {
              problems.push(`${name}: the bytes it should hold (sha256 ${want.slice(0, 12)}…) are in no backup; left as it is`)
              continue
            }
            fs.mkdirSync(path.dirname(at.absolute), { recursive: true })
            const mode = direction === "rollback" ? (t.beforeMode ?? 0o644) : (lstatOrUndefined(at.absolute)?.mode ?? 0o644) & 0o7777
            replaceFile(path.join(path.dirname(at.absolute), path.posix.basename(tempName(t.path, digest, i))), at.absolute, bytes, mode)
          }
          restored.push(name)
          changes.push(applied)
        }
        for (const temp of temps) if (fs.existsSync(temp)) removeFile(temp)
        if (direction === "rollback" && problems.length === 0) {
          // The directories the set created: from the journal, else every directory above a created file
          // (only an empty one is removed, so nothing anyone put there is lost).
          const dirsOf = journal !== undefined
            ? journal.createdDirs.map((d) => ({ bundle: d.bundle, path: d.path }))
            : targets.filter((t) => t.beforeHash === null).flatMap((t) => {
              const parts = t.path.split("/")
              return parts.slice(1).map((_, i) => ({ bundle: t.bundle, path: parts.slice(0, i + 1).join("/") }))
            })
          const created = [...new Map(dirsOf.map((d) => [`${d.bundle}\0${d.path}`, d])).values()]
            .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
            .flatMap((d) => {
              const root = roots.get(d.bundle)
              const at = root === undefined ? "gone" : locate(root, d.path, "directory")
              return typeof at === "string" ? [] : [at.absolute]
            })
          removeEmptyDirs(created)
        }
      })
      // Resolved either way: the journal no longer blocks writers; kept aside when anything was left.
      if (read !== undefined) {
        if (problems.length === 0) yield* io(paths.txnDir, () => removeRecord(paths.txnDir, id, JOURNAL_FILE))
        else yield* setAside(id)
      }
      if (retire !== undefined) yield* io(paths.txnDir, () => removeRecord(paths.txnDir, id, RETIRE_FILE))
      for (const record of finishedDamaged) if ("file" in record) yield* io(paths.txnDir, () => fs.rmSync(path.join(paths.txnDir, FINISHED_DIR, record.file), { force: true }))
      return { id, op, direction, changes, restored, problems } satisfies ResolveResult as ResolveResult
    })

  return Transaction.of({
    apply,
    hold,
    revert: (request) =>
      underLease(
        Effect.gen(function* () {
          yield* recoverOrRefuse
          const changes: Array<FileChange> = []
          for (const c of request.changes) {
            if (c.beforeHash === c.afterHash) continue
            if (c.beforeHash === null) {
              changes.push({ bundle: c.bundle, path: c.path, beforeHash: c.afterHash, delete: true })
              continue
            }
            const bytes = yield* io(paths.archiveDir, () => getBlob(paths.archiveDir, c.backup ?? c.beforeHash!))
            if (bytes === undefined) {
              return yield* refused(c.path, "the backup of the replaced bytes is missing from the archive", "the archive was purged or damaged; restore the file by hand")
            }
            changes.push({ bundle: c.bundle, path: c.path, beforeHash: c.afterHash, after: bytes })
          }
          const result = yield* applyLocked({ id: request.id, changes, message: request.message ?? `akm: revert ${request.id}` }, "revert", false).pipe(
            Effect.catchTag("ValidationFailed", (e) => Effect.die(e)),
            Effect.catchTag("StaleBeforeHash", (e) =>
              Effect.fail(new StaleBeforeHash({ ...e, hint: "the file changed after the change was accepted; reverting would overwrite that edit — revert by hand or make a new proposal" })))
          )
          // After the files, so a crash in between leaves empty directories and nothing lost.
          const warnings = [...(result.warnings ?? []), ...(yield* removeCreatedDirs(request.createdDirs ?? []))]
          return warnings.length === 0 ? result : { ...result, warnings }
        })
      ),
    recover: underLease(recoverLocked),
    twoPhase: (publish, retire) =>
      underLease(
        Effect.gen(function* () {
          yield* recoverOrRefuse
          for (const id of [publish.id, retire.id]) {
            const badId = idProblem(id)
            if (badId !== undefined) return yield* refused(id, badId, "use the proposal id")
          }
          if (publish.id === retire.id) return yield* refused(retire.id, "the publish and retire phases need different ids", "derive the retire id from the proposal id, e.g. <id>-retire")
          const shapes = [...publish.changes, ...retire.changes].map(shapeProblem).find((p) => p !== undefined)
          if (shapes !== undefined) return yield* refused(retire.id, shapes, "this is a bug in the code that built the change")
          const base: RetireRecord = {
            version: 1,
            id: retire.id,
            publishId: publish.id,
            stage: "awaiting-publish",
            ...(retire.message === undefined ? {} : { message: retire.message }),
            published: publish.changes.map((c) => ({ bundle: c.bundle, path: c.path, afterHash: c.after === undefined ? null : sha256(bytesOf(c.after)) })),
            changes: []
          }
          const record = yield* io(paths.archiveDir, () => ({
            ...base,
            changes: retire.changes.map((c) => ({
              bundle: c.bundle,
              path: c.path,
              beforeHash: c.beforeHash,
              ...(c.after === undefined ? { delete: true as const } : { afterBlob: putBlob(paths.archiveDir, bytesOf(c.after)) }),
              ...(c.mode === undefined ? {} : { mode: c.mode })
            }))
          }))
          yield* io(paths.txnDir, () => writeRetireRecord(paths.txnDir, record))
          crashPoint("after-retire-record")
          const published = yield* applyLocked(publish, "apply", true).pipe(
            Effect.tapError(() => io(paths.txnDir, () => removeRecord(paths.txnDir, retire.id, RETIRE_FILE)).pipe(Effect.ignore))
          )
          yield* io(paths.txnDir, () => writeRetireRecord(paths.txnDir, { ...record, stage: "published" }))
          crashPoint("after-publish")
          const retired = yield* Effect.either(applyLocked(retire, "retire", true))
          if (retired._tag === "Left") return { publish: published, retire: undefined }
          yield* io(paths.txnDir, () => removeRecord(paths.txnDir, retire.id, RETIRE_FILE))
          return { publish: published, retire: retired.right }
        })
      ),
    blob: (hash) => io(paths.archiveDir, () => getBlob(paths.archiveDir, hash)),
    keep: (bytes) => io(paths.archiveDir, () => putBlob(paths.archiveDir, bytes)),
    finished: io(paths.txnDir, () =>
      listFinished(paths.txnDir).flatMap((record): ReadonlyArray<FinishedSet> => ("problem" in record ? [] : [{
        id: record.id,
        op: record.op,
        changes: appliedOf(record),
        ...(record.createdDirs.length === 0 ? {} : { createdDirs: record.createdDirs })
      }]))),
    acknowledge: (id, op) => io(paths.txnDir, () => removeFinished(paths.txnDir, id, op)),
    inspect,
    resolve: (request) => underLease(resolveLocked(request))
  })
}

/** The engine over the workspace: bundles from config.yaml and akm.lock, adapters from the registry. */
export const TransactionEngineLive = Layer.effect(
  Transaction,
  Effect.gen(function* () {
    const workspace = yield* WorkspaceConfig
    const adapters = yield* Adapters
    const files = yield* BundleFiles
    const crashPoints = yield* CrashPoints
    const validator = yield* ChangeValidator
    // Absent in a graph without it (tests, embedders): one workspace's lease is enough there.
    const crossServer = Option.getOrUndefined(yield* Effect.serviceOption(BundleWriteLock))
    return makeTransactionEngine({ paths: workspace.paths, bundles: workspaceBundles(workspace, adapters), files, crashPoints, validator, ...(crossServer === undefined ? {} : { crossServer }) })
  })
)
