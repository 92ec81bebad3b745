import { randomUUID } from "node:crypto"
import * as path from "node:path"
import { Clock, Effect, Either } from "effect"
import type { AuthoringContext, BundleAdapter, BundleInfo } from "../../domain/Adapter.js"
import { ConfigInvalid } from "../../domain/Errors.js"
import { LEARN_KINDS, REVISE_KINDS, type Evidence } from "../../domain/Evidence.js"
import {
  EVALUATOR_VERSION,
  gateConfig,
  RECIPE_VERSION,
  SETTLED_OUTCOMES,
  type GateConfig,
  type ImproveRecipe,
  type RunRecord,
  type RunTarget
} from "../../domain/Improve.js"
import { autoApplyPolicy, fingerprint, type ChangeClass } from "../../domain/Proposal.js"
import type { Adapters } from "../../services/Adapters.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { Generator, type GenerationRequest } from "../../services/Generator.js"
import type { ImproveInput } from "../../services/Improve.js"
import { ImproveStore } from "../../services/ImproveStore.js"
import { IndexStore } from "../../services/IndexStore.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { Redactor } from "../../services/Redactor.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { indexBundles } from "../indexBundles.js"
import { refreshIndex } from "../proposals/accept.js"
import { now } from "../proposals/lookup.js"
import { resolveBundle } from "../scan.js"
import { finishAttempt } from "./finish.js"
import { takeSnapshot, type Snapshot } from "./sandbox.js"
import { verifyCandidate, type VerifyTarget } from "./verify.js"
import { UsageLog } from "../../services/UsageLog.js"
import { PAST_QUERIES } from "../../domain/Improve.js"

const DEFAULT_LIMIT = 10

/** One unit of work a run plans: a target with its evidence, or why it cannot be attempted. */
interface Planned {
  readonly recipe: ImproveRecipe
  readonly target: string
  readonly evidence: ReadonlyArray<Evidence>
  /** Independent observations (R-IMP-2): orders the work. */
  readonly weight: number
  readonly work?: {
    readonly info: BundleInfo
    readonly adapter: BundleAdapter
    readonly authoring: AuthoringContext
    readonly targets: ReadonlyArray<VerifyTarget>
    readonly allowedPaths: ReadonlyArray<string>
    readonly topic: string
  } | undefined
  /** Set when it is not attempted: refused (read-only bundle…) or skipped (vanished ref…). */
  readonly blocked?: { readonly outcome: "refused" | "skipped"; readonly reason: string } | undefined
}

const topicOf = (e: Evidence): string => (e.query ?? e.note).replace(/\s+/g, " ").trim().toLowerCase().split(" ").slice(0, 8).join(" ")

const groupBy = <K>(rows: ReadonlyArray<Evidence>, key: (e: Evidence) => K): Map<K, Array<Evidence>> => {
  const by = new Map<K, Array<Evidence>>()
  for (const row of rows) by.set(key(row), [...(by.get(key(row)) ?? []), row])
  return by
}

type Writable =
  | { readonly _tag: "Refused"; readonly refused: string }
  | { readonly _tag: "Writable"; readonly info: BundleInfo; readonly adapter: BundleAdapter; readonly authoring: AuthoringContext }

/** Where a bundle stands for writing: refused with the reason, or its adapter and authoring context for `target`. */
const writableBundle = (bundle: string, target: string, op: "create" | "update"): Effect.Effect<Writable, never, Adapters | WorkspaceConfig | BundleFiles> =>
  Effect.gen(function* () {
    const resolved = yield* Effect.either(resolveBundle(bundle))
    if (Either.isLeft(resolved)) return { _tag: "Refused", refused: String(resolved.left.message) } satisfies Writable
    const { info, adapter } = resolved.right
    if (!info.writable) return { _tag: "Refused", refused: `bundle '${bundle}' is read-only; akm never writes it in place (the evidence is kept)` }
    if (!adapter.writable || adapter.authoringContext === undefined) return { _tag: "Refused", refused: `the ${adapter.id} adapter of bundle '${bundle}' has no authoring path (the evidence is kept)` }
    const authoring = yield* adapter.authoringContext(info, target, op)
    return { _tag: "Writable", info, adapter, authoring } satisfies Writable as Writable
  })

/** revise: one target per item that corrective evidence names (R-IMP-1: nothing else admits a rewrite). */
const planRevise = (rows: ReadonlyArray<Evidence>, input: ImproveInput) =>
  Effect.gen(function* () {
    const index = yield* IndexStore
    const files = yield* BundleFiles
    const planned: Array<Planned> = []
    const evidence = yield* EvidenceStore
    for (const [ref, own] of groupBy(rows.filter((e) => e.ref !== undefined && REVISE_KINDS.includes(e.kind)), (e) => e.ref!)) {
      const base = { recipe: "revise" as const, target: ref, evidence: own, weight: evidence.independentCount(own) }
      const doc = yield* index.resolve(ref)
      if (doc === undefined) {
        planned.push({ ...base, blocked: { outcome: "skipped", reason: `no item ${ref} in the index any more; the evidence is kept` } })
        continue
      }
      if (input.bundle !== undefined && doc.bundle !== input.bundle) continue
      const bundle = yield* writableBundle(doc.bundle, "", "update")
      if (bundle._tag === "Refused") {
        planned.push({ ...base, blocked: { outcome: "refused", reason: bundle.refused } })
        continue
      }
      const rel = path.relative(bundle.info.root, doc.path).split(path.sep).join("/")
      const read = yield* Effect.either(files.readText(bundle.info.root, rel))
      const hashed = yield* Effect.either(files.hash(bundle.info.root, [rel]))
      if (Either.isLeft(read) || Either.isLeft(hashed)) {
        planned.push({ ...base, blocked: { outcome: "skipped", reason: `${ref}: its file ${rel} cannot be read; run \`akm index\`` } })
        continue
      }
      const authoring = yield* bundle.adapter.authoringContext!(bundle.info, rel, "update")
      planned.push({
        ...base,
        work: {
          info: bundle.info,
          adapter: bundle.adapter,
          authoring,
          targets: [{ path: rel, before: read.right, beforeHash: hashed.right.hash, ref, pastQueries: yield* (yield* UsageLog).queriesReturning(ref, PAST_QUERIES) }],
          allowedPaths: [rel],
          topic: ref
        }
      })
    }
    return planned
  })

/** learn: one new item per recurring topic of questions, recurring failures and session observations. */
const planLearn = (rows: ReadonlyArray<Evidence>, input: ImproveInput, defaultBundle: string | undefined) =>
  Effect.gen(function* () {
    const evidence = yield* EvidenceStore
    const planned: Array<Planned> = []
    for (const [topic, own] of groupBy(rows.filter((e) => LEARN_KINDS.includes(e.kind)), topicOf)) {
      const weight = evidence.independentCount(own)
      const base = { recipe: "learn" as const, target: topic, evidence: own, weight }
      // R-IMP-2: a recurring failure is one only when it recurred independently.
      if (own.every((e) => e.kind === "recurring-failure") && weight < 2) {
        planned.push({ ...base, blocked: { outcome: "skipped", reason: `one independent occurrence of "${topic}"; a recurring failure needs two` } })
        continue
      }
      const fromEvidence = own.map((e) => e.ref?.split("//")[0]).find((b) => b !== undefined && b !== "")
      const candidates = [input.bundle, fromEvidence, defaultBundle].filter((b): b is string => b !== undefined)
      let chosen: Writable = { _tag: "Refused", refused: "no bundle to write to: pass --bundle or set defaultBundle in config.yaml (the evidence is kept)" }
      for (const name of input.bundle !== undefined ? [input.bundle] : candidates) {
        chosen = yield* writableBundle(name, "", "create")
        if (chosen._tag === "Writable") break
      }
      if (chosen._tag === "Refused") {
        planned.push({ ...base, blocked: { outcome: "refused", reason: chosen.refused } })
        continue
      }
      planned.push({
        ...base,
        target: `${chosen.info.name}: ${topic}`,
        work: { info: chosen.info, adapter: chosen.adapter, authoring: chosen.authoring, targets: [], allowedPaths: chosen.authoring.allowedPaths, topic }
      })
    }
    return planned
  })

const instructionsFor = (p: Planned): string =>
  p.recipe === "revise"
    ? [
      `Revise ${p.target} so it answers what the evidence below says it failed at.`,
      "Return the whole new file. Keep every fact, heading and frontmatter field that is still true; change only what the evidence asks for.",
      "Frontmatter fields other than description, tags, aliases and search hints must stay exactly as they are. Do not repeat keywords."
    ].join("\n")
    : [
      `Write one new item that answers "${p.work?.topic ?? p.target}", from the evidence below.`,
      `Put it at a new path matching one of: ${(p.work?.allowedPaths ?? []).join(", ")}.`,
      "Follow the authoring guidance; state only what the evidence supports."
    ].join("\n")

/** Level 3 (field outcomes): what became of earlier improve proposals; recorded per change and used only to order work. */
const syncOutcomes = Effect.gen(function* () {
  const store = yield* ImproveStore
  const proposals = yield* ProposalStore
  const evidence = yield* EvidenceStore
  const recorded = new Map((yield* store.outcomes).map((o) => [o.proposalId, o.kind]))
  const penalties = new Map<string, number>()
  for (const attempt of yield* store.proposedAttempts) {
    const proposal = yield* proposals.get(attempt.proposalId!)
    if (proposal === undefined) continue
    if (proposal.status !== "pending" && recorded.get(proposal.id) !== proposal.status) {
      yield* store.recordOutcome({ proposalId: proposal.id, fingerprint: attempt.fingerprint, target: attempt.target, kind: proposal.status, at: yield* now })
      if (proposal.status === "accepted") yield* evidence.mark(proposal.evidence.map((e) => e.id), "used")
    }
    if (proposal.status === "rejected" || proposal.status === "reverted") penalties.set(attempt.target, (penalties.get(attempt.target) ?? 0) + 1)
  }
  return penalties
})

/** The Level 3 order, read-only (dry run): earlier rejections and reverts count against a target. */
const outcomePenalties = Effect.gen(function* () {
  const penalties = new Map<string, number>()
  for (const o of yield* (yield* ImproveStore).outcomes) {
    if (o.kind === "rejected" || o.kind === "reverted") penalties.set(o.target, (penalties.get(o.target) ?? 0) + 1)
  }
  return penalties
})

const configError = (file: string, key: string, reason: string) => new ConfigInvalid({ file, path: key, reason, hint: `fix ${key} in ${file}` })

/**
 * One improve run (spec 06 §4): corrective evidence → planned targets →
 * per target a fingerprint (settled ones are skipped with zero model calls,
 * R-IMP-3) → the generator's candidate → verification against the run's
 * frozen snapshot (R-IMP-5) → a proposal. A dry run plans and prints only:
 * no generator call, no row, no file, no lease (R-IMP-6). The caller holds
 * the improve lease (R-IMP-4).
 */
export const improveOnce = Effect.fn("improve.run")(function* (input: ImproveInput) {
  const started = yield* Clock.currentTimeMillis
  const startedAt = yield* now
  const runId = randomUUID()
  const dryRun = input.dryRun === true
  const workspace = yield* WorkspaceConfig
  const config = yield* workspace.read
  const gate = gateConfig(config.improve)
  if ("reason" in gate) return yield* configError(workspace.paths.configFile, "improve.gate", gate.reason)
  const autoApply = autoApplyPolicy(config.policy)
  if ("reason" in autoApply) return yield* configError(workspace.paths.configFile, "policy.autoApply", autoApply.reason)
  const generator = yield* Generator
  const store = yield* ImproveStore
  const index = yield* IndexStore
  if (!dryRun && (yield* index.lastIndexed) === undefined) yield* indexBundles({})
  const penalties = dryRun ? yield* outcomePenalties : yield* syncOutcomes

  const rows = yield* (yield* EvidenceStore).list({ status: "open", ref: input.ref })
  const recipes: ReadonlyArray<ImproveRecipe> = input.recipe === undefined ? ["revise", "learn"] : [input.recipe]
  const planned = [
    ...(recipes.includes("revise") ? yield* planRevise(rows, input) : []),
    ...(recipes.includes("learn") && input.ref === undefined ? yield* planLearn(rows, input, config.defaultBundle) : [])
  ].sort((a, b) => (penalties.get(a.target) ?? 0) - (penalties.get(b.target) ?? 0) || b.weight - a.weight || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0))
  const limit = Math.max(1, Math.floor(input.limit ?? DEFAULT_LIMIT))

  const targets: Array<RunTarget> = []
  const usage = { modelCalls: 0, cachedCalls: 0, inputTokens: 0, outputTokens: 0 }
  const proposals: Array<string> = []
  const autoApplied: Array<string> = []
  const appliedBundles = new Set<string>()
  let snapshot: Snapshot | undefined
  let status: RunRecord["status"] = "ok"
  let attempted = 0

  for (const p of planned) {
    const evidenceIds = p.evidence.map((e) => e.id)
    const base = { recipe: p.recipe, target: p.target, evidence: evidenceIds }
    if (p.blocked !== undefined || p.work === undefined) {
      targets.push({ ...base, outcome: p.blocked?.outcome ?? "skipped", reason: p.blocked?.reason })
      continue
    }
    if (attempted >= limit) {
      targets.push({ ...base, outcome: "skipped", reason: `over --limit ${limit}` })
      continue
    }
    if (input.budgetMs !== undefined && (yield* Clock.currentTimeMillis) - started >= input.budgetMs) {
      status = "budget"
      targets.push({ ...base, outcome: "skipped", reason: `the --budget-ms ${input.budgetMs} was spent` })
      continue
    }
    const work = p.work
    const fp = fingerprint({
      recipe: p.recipe,
      recipeVersion: RECIPE_VERSION,
      targets: p.recipe === "revise" ? work.targets.map((t) => ({ bundle: work.info.name, path: t.path, beforeHash: t.beforeHash })) : [{ bundle: work.info.name, path: `learn:${work.topic}`, beforeHash: null }],
      evidence: p.evidence.map((e) => ({ id: e.id, hash: e.hash })),
      guidance: [work.authoring.ruleHash, ...work.authoring.guidance.map((g) => g.hash)],
      evaluatorVersion: `${EVALUATOR_VERSION}/${JSON.stringify(gate satisfies GateConfig)}`,
      generator: generator.id
    })
    const withFp = { ...base, fingerprint: fp }
    if (input.force !== true) {
      const settled = (yield* store.attempts(fp)).find((a) => SETTLED_OUTCOMES.includes(a.outcome))
      if (settled !== undefined) {
        const why = settled.outcome === "packet" ? settled.reason ?? "a work packet is open" : `already attempted with the same inputs (${settled.outcome}${settled.proposalId === undefined ? "" : ` ${settled.proposalId.slice(0, 8)}`})`
        targets.push({ ...withFp, outcome: "skipped", reason: `${why}; --force tries again` })
        continue
      }
      const made = yield* (yield* ProposalStore).withFingerprint(fp)
      if (made.length > 0) {
        targets.push({ ...withFp, outcome: "skipped", reason: `proposal ${made[0]!.id.slice(0, 8)} (${made[0]!.status}) came from the same inputs`, proposalId: made[0]!.id })
        continue
      }
    }
    if (!generator.available) {
      targets.push({ ...withFp, outcome: "skipped", reason: "no generator configured (improve.generator in config.yaml); semantic recipes need one" })
      continue
    }
    attempted++
    if (dryRun) {
      targets.push({ ...withFp, outcome: "planned", reason: `would ask ${generator.id} to ${p.recipe} ${p.target} from ${p.evidence.length} evidence row${p.evidence.length === 1 ? "" : "s"} (${[...new Set(p.evidence.map((e) => e.kind))].join(", ")})` })
      continue
    }
    const attempt = (outcome: RunTarget["outcome"] & string, extra: { readonly reason?: string | undefined; readonly proposalId?: string | undefined; readonly packetId?: string | undefined } = {}) =>
      Effect.gen(function* () {
        targets.push({ ...withFp, outcome, ...extra })
        if (outcome === "skipped" || outcome === "planned") return
        yield* store.recordAttempt({ runId, fingerprint: fp, recipe: p.recipe, target: p.target, outcome, reason: extra.reason, proposalId: extra.proposalId, at: yield* now })
      })
    const redactor = yield* Redactor
    const request: GenerationRequest = {
      recipe: p.recipe,
      fingerprint: fp,
      authoring: work.authoring,
      evidence: p.evidence,
      // R-GEN-1: the generator never sees a secret value; Level 1 refuses a candidate that writes a placeholder back.
      targets: yield* Effect.forEach(work.targets, (t) =>
        Effect.map(redactor.redact(t.before ?? ""), (text) => ({ bundle: work.info.name, path: t.path, content: t.before === null ? null : String(text), ref: t.ref }))),
      bundle: work.info.name,
      instructions: instructionsFor(p),
      allowedPaths: work.allowedPaths
    }
    const generated = yield* Effect.either(generator.generate(request))
    if (Either.isLeft(generated)) {
      yield* attempt("generation-failed", { reason: `${generated.left.reason}: ${generated.left.message}` })
      continue
    }
    const result = generated.right
    if (result._tag === "Packet") {
      yield* attempt("packet", { reason: `waiting for \`akm proposal submit ${result.id}\``, packetId: result.id })
      continue
    }
    if (result.cached) usage.cachedCalls++
    else usage.modelCalls++
    usage.inputTokens += result.usage.inputTokens
    usage.outputTokens += result.usage.outputTokens
    snapshot ??= yield* takeSnapshot()
    const verification = yield* verifyCandidate({
      recipe: p.recipe,
      info: work.info,
      adapter: work.adapter,
      targets: work.targets,
      allowedPaths: work.allowedPaths,
      files: result.files,
      evidence: p.evidence,
      gate,
      snapshot
    })
    const title = p.recipe === "revise" ? `Revise ${p.target}: ${p.evidence[0]!.note.slice(0, 60)}` : `Learn: ${work.topic.slice(0, 70)}`
    const finished = yield* finishAttempt({ recipe: p.recipe, title, fingerprint: fp, evidence: p.evidence, verification, autoApply: autoApply as ReadonlyArray<ChangeClass> })
    if (finished.proposalId !== undefined) proposals.push(finished.proposalId)
    if (finished.outcome === "auto-applied") {
      autoApplied.push(finished.proposalId!)
      appliedBundles.add(work.info.name)
    }
    yield* attempt(finished.outcome, { reason: finished.reason, proposalId: finished.proposalId })
  }

  // R-IMP-5: what was applied during the run reaches the index once, at its end.
  if (appliedBundles.size > 0) yield* refreshIndex([...appliedBundles])
  const finishedAt = yield* now
  const run: RunRecord = {
    id: runId,
    startedAt,
    finishedAt,
    durationMs: (yield* Clock.currentTimeMillis) - started,
    dryRun,
    options: Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
    generator: generator.id,
    targets,
    ...usage,
    proposals,
    autoApplied,
    status: targets.length === 0 ? "nothing-to-do" : status
  }
  if (!dryRun) yield* store.recordRun(run)
  return run
})

/**
 * `akm improve`: a dry run plans without the lease (it writes nothing, not
 * even a lock file); a real run holds the workspace improve lease, waiting
 * for a live holder or, with skipIfLocked, returning Locked (R-IMP-4).
 */
export const improveRun = (input: ImproveInput) =>
  input.dryRun === true
    ? Effect.map(improveOnce(input), (run) => ({ _tag: "Ran" as const, run }))
    : Effect.flatMap(ImproveStore, (store) =>
      Effect.map(store.withRunLease(improveOnce(input), { skipIfLocked: input.skipIfLocked === true }), (outcome) =>
        outcome._tag === "Ran" ? { _tag: "Ran" as const, run: outcome.value } : outcome))
