import { Clock, Effect, Either, Option } from "effect"
import type { AuthoringContext, BundleAdapter, BundleInfo } from "../../domain/Adapter.js"
import { Conflict, UsageError } from "../../domain/Errors.js"
import type { Evidence } from "../../domain/Evidence.js"
import { contradictionsIn, judgeSources, keepContradictions, relatedGroups } from "../../domain/memory/Compaction.js"
import type { Retirement } from "../../domain/memory/Cleanup.js"
import type { MemoryRecord } from "../../domain/memory/MemoryRecord.js"
import { fingerprint, sha256Hex, type ProposalStatus } from "../../domain/Proposal.js"
import { headingSlug } from "../../domain/Ref.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { Generator, type GenerationRequest } from "../../services/Generator.js"
import { MemoryArchive } from "../../services/MemoryArchive.js"
import { MemoryStore, type NewArchiveEntry } from "../../services/MemoryStore.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import type { Redacted } from "../../domain/Redaction.js"
import { Redactor } from "../../services/Redactor.js"
import { splitFrontmatter } from "../import.js"
import { authorRedacted } from "../proposals/authorRedacted.js"
import { authoringConflict, proposeAndApply, writeTarget } from "../proposals/direct.js"
import { resolveBundle } from "../scan.js"
import { CONSOLIDATE_RECIPE, FORMALIZE_RECIPE } from "./recipes.js"
import { readTier, type Tier } from "./tiers.js"

/** Bumped when what a consolidation asks or checks changes: part of each attempt's fingerprint. */
const RECIPE_VERSION = "memory-consolidate/1"
/** At most this many groups go to the generator in one pass. */
const MAX_GROUPS = 10

/** One consolidated item a pass made (or, dry run, would ask for). */
export interface ConsolidatedItem {
  readonly outcome: "compact" | "formalize"
  /** The bundle the item is (or would be) written to. */
  readonly bundle: string
  readonly ref?: string | undefined
  readonly path?: string | undefined
  /** Every source of the group. */
  readonly sources: ReadonlyArray<string>
  /** Sources the item states in full: retired (or retired once the proposal is accepted). */
  readonly retired: ReadonlyArray<string>
  /** Sources with a claim the item does not state: they stay live (R-MEM-3), with the first missing claim. */
  readonly kept: ReadonlyArray<{ readonly ref: string; readonly claim: string; readonly reason: string }>
  /** Temporal lines core added because the generated text had picked one value of a changed fact. */
  readonly qualified: ReadonlyArray<string>
  readonly proposal?: { readonly id: string; readonly status: ProposalStatus; readonly hint?: string | undefined } | undefined
  /** The agent work packet written for the group (generator `agent`); `akm proposal submit <packet>` completes it. */
  readonly packet?: string | undefined
  /** Why nothing was written for the group (generation failed, nothing fully stated, …). */
  readonly skipped?: string | undefined
}

export interface CompactResult {
  readonly items: ReadonlyArray<ConsolidatedItem>
  /** Sources actually retired (their proposal was accepted), with their claims' dispositions. */
  readonly retired: ReadonlyArray<Retirement>
  readonly proposalIds: ReadonlyArray<{ readonly id: string; readonly status: ProposalStatus; readonly hint?: string | undefined }>
}

/**
 * Paths a pending consolidation already removes, and refs it masks (a
 * read-only tier's sources, named by its evidence): their groups are not
 * asked for again while it waits.
 */
const pendingPaths = Effect.gen(function* () {
  const store = yield* ProposalStore
  const paths = new Set<string>()
  for (const recipe of [CONSOLIDATE_RECIPE, FORMALIZE_RECIPE]) {
    for (const p of yield* store.list({ status: "pending", recipe, limit: 1000 })) {
      for (const f of p.files) if (f.action === "delete") paths.add(`${f.bundle}//${f.path}`)
      if (p.files.every((f) => f.action !== "delete")) for (const e of (yield* store.get(p.id))?.evidence ?? []) if (e.ref !== undefined) paths.add(e.ref)
    }
  }
  return paths
})

/** A destination for the consolidated item: a writable bundle whose adapter can author it. */
export const destinationOf = (name: string) =>
  Effect.gen(function* () {
    const { info, adapter } = yield* resolveBundle(name)
    if (!info.writable) return yield* new Conflict({ message: `bundle '${name}' is read-only`, hint: "formalize into a writable bundle (--to <bundle>)" })
    if (adapter.create === undefined) return yield* new Conflict({ message: `the ${adapter.id} adapter of bundle '${name}' cannot author items`, hint: "formalize into an akm, okf or project bundle" })
    return { info, adapter }
  })

const fallbackAuthoring = (adapter: BundleAdapter, allowedPaths: ReadonlyArray<string>): AuthoringContext => ({
  adapter: adapter.id,
  ruleSetVersion: "0",
  ruleHash: "none",
  guidance: [],
  instructions: "Markdown with a short title heading.",
  examples: [],
  allowedPaths,
  constraints: []
})

const instructionsFor = (outcome: "compact" | "formalize", sources: ReadonlyArray<MemoryRecord>, lines: ReadonlyArray<string>, target: string): string =>
  [
    outcome === "compact"
      ? `Consolidate these ${sources.length} related memories into one memory at ${target}.`
      : `Formalize these ${sources.length} recurring memories into one durable knowledge item at ${target}.`,
    "State every fact of every source: keep numbers, units, dates, names, negations and qualifiers exactly as written. A source whose facts are not all stated stays as it is.",
    "Merge repeated facts once. Do not invent anything the sources do not say.",
    ...(lines.length === 0
      ? []
      : ["These facts changed over time; keep both values with their dates, word for word:", ...lines.map((l) => `- ${l}`)]),
    "Return the whole file: a title heading, then the facts."
  ].join("\n")

const evidenceOf = (sources: ReadonlyArray<MemoryRecord>, at: string): ReadonlyArray<Evidence> =>
  sources.map((s) => ({ id: `memory:${s.ref}`, kind: "pressure", source: "memory", ref: s.ref, note: `related memory ${s.ref}`, hash: s.hash, recordedAt: at, status: "open" }))

const firstLine = (text: string): string => text.split("\n").map((l) => l.replace(/^#+\s*/, "").trim()).find((l) => l !== "") ?? ""

/** The bytes of a source, when they still hash to what was read. */
const sourceBytes = (tier: Tier, record: MemoryRecord) =>
  Effect.gen(function* () {
    const text = yield* Effect.either((yield* BundleFiles).readText(tier.info.root, record.path))
    if (Either.isLeft(text) || sha256Hex(text.right) !== record.hash) return undefined
    return new TextEncoder().encode(text.right)
  })

export interface Destination {
  readonly info: BundleInfo
  readonly adapter: BundleAdapter
}

/** The archive row of one retirement from `tier`. */
export const entryOf = (tier: Tier, r: Retirement, at: string, overlay: boolean, proposalId?: string): NewArchiveEntry => ({
  bundle: tier.info.name,
  ref: r.record.ref,
  path: r.record.path,
  digest: r.record.hash,
  bytes: r.record.bytes,
  state: r.state,
  reason: r.reason,
  successors: r.successors,
  dispositions: r.dispositions,
  ...(proposalId === undefined ? {} : { proposalId }),
  retiredAt: at,
  overlay
})

export interface GroupAnswer {
  readonly tier: Tier
  readonly destination: Destination
  readonly outcome: "compact" | "formalize"
  readonly sources: ReadonlyArray<MemoryRecord>
  /** The item's id in the destination (`<dir>/<slug>`), written at `<conceptId>.md`. */
  readonly conceptId: string
  readonly title: Redacted
  /** What the generator (or an agent, through a work packet) wrote. */
  readonly content: string
  readonly generatorId: string
  readonly at: string
}

/**
 * Everything after the generated text exists — the same for a model's answer
 * and for an agent's submitted work packet: contradictions kept, the claim
 * check per source, the covered sources' bytes archived, one semantic
 * proposal (new item + retirements).
 */
export const completeGroup = Effect.fn("memory.compact.complete")(function* (answer: GroupAnswer) {
  const { tier, destination, outcome, sources, conceptId, title, at } = answer
  const base = { outcome, bundle: destination.info.name, sources: sources.map((s) => s.ref) }
  const redact = yield* (yield* Redactor).snapshot
  const files = yield* BundleFiles
  const walked = yield* files.walk(destination.info.root, { includeHidden: destination.adapter.includeHidden ?? false })
  const ctx = files.context(destination.info, walked.files)
  const type = outcome === "compact" ? "memory" : "knowledge"
  const target = `${conceptId}.md`
  const contradictions = contradictionsIn(sources)
  const kept = keepContradictions(splitFrontmatter(answer.content).body, contradictions)
  const body = redact(kept.body.endsWith("\n") ? kept.body : `${kept.body}\n`)
  const created = yield* Effect.either(authorRedacted(destination.adapter.create!, { type, conceptId, title, description: redact(firstLine(String(body)).slice(0, 200)), body }, ctx))
  if (Either.isLeft(created)) return yield* authoringConflict(created.left)
  const successorRef = `${destination.info.name}//${conceptId}`
  // The claim checker reads what will be on disk, minus frontmatter.
  const written = created.right.find((c) => c.path === target) ?? created.right[0]
  const writtenText = written?.after === undefined ? String(body) : typeof written.after === "string" ? written.after : new TextDecoder().decode(written.after)
  const verdicts = judgeSources(sources, splitFrontmatter(writtenText).body, successorRef)
  const covered = verdicts.flatMap((v) => (v._tag === "Covered" ? [v] : []))
  const keptSources = verdicts.flatMap((v) => (v._tag === "Kept" ? [{ ref: v.record.ref, claim: v.uncovered[0]!.claim, reason: v.uncovered[0]!.reason }] : []))
  const item = { ...base, ref: successorRef, path: target, kept: keptSources, qualified: kept.added }
  const none = (skipped: string) => ({ item: { ...item, retired: [], skipped } satisfies ConsolidatedItem as ConsolidatedItem, retired: [] as ReadonlyArray<Retirement> })
  if (covered.length === 0) return none("the generated item does not state every claim of any source; nothing is written and every source stays")
  // Archive first: a retirement is never a loss.
  const archive = yield* MemoryArchive
  const archived: Array<(typeof covered)[number]> = []
  for (const v of covered) {
    const bytes = yield* sourceBytes(tier, v.record)
    if (bytes === undefined) continue
    yield* archive.put(bytes)
    archived.push(v)
  }
  if (archived.length === 0) return none("the sources changed on disk since they were read; consolidate again")
  // A read-only tier is never written: the proposal only creates the item, and accepting it masks the sources (catchUp.ts).
  const changes = tier.info.writable
    ? [...created.right, ...tier.facet.render({ bundle: tier.info.name, retire: archived.map((v) => ({ path: v.record.path, hash: v.record.hash })), write: [] })]
    : [...created.right]
  const made = yield* proposeAndApply({
    title: outcome === "compact"
      ? `Consolidate memory: compact ${archived.length} of ${tier.info.name} into ${conceptId}`
      : `Formalize memory: ${archived.length} of ${tier.info.name} into ${destination.info.name}//${conceptId}`,
    // Two-phase (publish, then delete the sources) only when there are sources to delete.
    recipe: outcome === "compact" || !tier.info.writable ? CONSOLIDATE_RECIPE : FORMALIZE_RECIPE,
    changeClass: "semantic",
    changes,
    evidence: archived.map((v) => ({ kind: "pressure", id: v.record.ref, hash: v.record.hash, ref: v.record.ref })),
    generator: answer.generatorId,
    bundle: destination.info.name,
    root: destination.info.root
  })
  const proposal = { id: made.id, status: made.status, ...(made.hint === undefined ? {} : { hint: made.hint }) }
  const retirements: ReadonlyArray<Retirement> = archived.map((v) => ({
    record: v.record,
    reason: outcome === "compact" ? "compacted" : "formalized",
    state: "retired",
    successors: [successorRef],
    dispositions: v.dispositions
  }))
  if (made.status === "accepted" && tier.info.writable) {
    // Recorded as retired only once the files are gone (a proposal waiting for review retires nothing yet).
    yield* (yield* MemoryStore).record(retirements.map((r) => entryOf(tier, r, at, false, made.id)))
  }
  return {
    item: { ...item, retired: archived.map((v) => v.record.ref), proposal } satisfies ConsolidatedItem as ConsolidatedItem,
    retired: made.status === "accepted" && tier.info.writable ? retirements : []
  }
})

/** The title of a group's item: its first source's first line (redacted). */
export const groupTitle = (sources: ReadonlyArray<MemoryRecord>, redact: (text: string) => Redacted): Redacted =>
  redact(firstLine(sources[0]!.body).replace(/[.!?]$/, "").slice(0, 60) || "Consolidated memory")

/**
 * The generator paths of `akm memory consolidate` (spec 06 §8.4):
 * compact (related memories → one memory in the same tier) or, with a
 * destination, formalize (→ one knowledge item there, two-phase R-TX-9).
 * The generator only writes the text; the claim checker decides which
 * sources the item states in full, and only those are retired (R-MEM-3).
 * Contradictions stay, with temporal qualifiers (never one value picked).
 * Without a generator nothing here runs: deterministic cleanup stands alone.
 */
export const compactTier = Effect.fn("memory.compact")(function* (tier: Tier, options: { readonly dryRun: boolean; readonly to?: string | undefined; readonly wanted: number }) {
  const empty: CompactResult = { items: [], retired: [], proposalIds: [] }
  const generator = Option.getOrUndefined(yield* Effect.serviceOption(Generator))
  const outcome = options.to === undefined ? "compact" as const : "formalize" as const
  if (options.to !== undefined && (generator === undefined || !generator.available)) {
    return yield* new UsageError({
      message: `formalizing memories into '${options.to}' needs a generator, and none is configured`,
      hint: "set improve.generator in config.yaml (see docs/generators.md), or run `akm memory consolidate` without --to for deterministic cleanup"
    })
  }
  if (generator === undefined || !generator.available) return empty
  let destination: Destination = { info: tier.info, adapter: tier.adapter }
  let memoryDir = tier.facet.dir
  if (options.to !== undefined) destination = yield* destinationOf(options.to)
  else if (!tier.info.writable) {
    // A read-only tier compacts into the default writable bundle's memory tier; its sources are masked by overlays once accepted.
    const name = yield* Effect.either(writeTarget(undefined))
    const into = Either.isLeft(name) ? undefined : yield* readTier(name.right)
    if (into === undefined || !into.info.writable || into.info.name === tier.info.name || into.adapter.create === undefined) return empty
    destination = { info: into.info, adapter: into.adapter }
    memoryDir = into.facet.dir
  }
  if (destination.info.name === tier.info.name && outcome === "formalize") {
    return yield* new UsageError({ message: `--to names the memory tier's own bundle '${tier.info.name}'`, hint: "formalize into another bundle; without --to, consolidate compacts within the tier" })
  }
  const busy = yield* pendingPaths
  const groups = relatedGroups(tier.active).filter((g) => g.every((r) => !busy.has(`${tier.info.name}//${r.path}`) && !busy.has(r.ref))).slice(0, MAX_GROUPS)
  const nowMs = yield* Clock.currentTimeMillis
  const at = new Date(nowMs).toISOString()
  const items: Array<ConsolidatedItem> = []
  const retired: Array<Retirement> = []
  const proposalIds: Array<CompactResult["proposalIds"][number]> = []
  const redact = yield* (yield* Redactor).snapshot
  const files = yield* BundleFiles
  let reduced = 0
  for (const group of groups) {
    // Compaction runs toward low water only; formalize was asked for.
    if (outcome === "compact" && reduced >= options.wanted) break
    const sources = group
    const base = { outcome, bundle: destination.info.name, sources: sources.map((s) => s.ref) }
    const contradictions = contradictionsIn(sources)
    if (options.dryRun) {
      items.push({ ...base, retired: [], kept: [], qualified: [], skipped: `would ask ${generator.id} to ${outcome} ${sources.length} related memories` })
      reduced += sources.length - 1
      continue
    }
    const walked = yield* files.walk(destination.info.root, { includeHidden: destination.adapter.includeHidden ?? false })
    const ctx = files.context(destination.info, walked.files)
    const dir = outcome === "compact" ? memoryDir : "knowledge"
    const title = groupTitle(sources, redact)
    let conceptId = `${dir}/${headingSlug(String(title)) || "memory"}`
    for (let n = 2; ctx.exists(`${conceptId}.md`); n++) conceptId = `${dir}/${headingSlug(String(title)) || "memory"}-${n}`
    const target = `${conceptId}.md`
    const authoring = destination.adapter.authoringContext === undefined
      ? fallbackAuthoring(destination.adapter, [target])
      : yield* destination.adapter.authoringContext(destination.info, target, "consolidate")
    const fp = fingerprint({
      recipe: "consolidate",
      recipeVersion: RECIPE_VERSION,
      targets: sources.map((s) => ({ bundle: tier.info.name, path: s.path, beforeHash: s.hash })),
      evidence: [],
      guidance: [authoring.ruleHash, ...authoring.guidance.map((g) => g.hash), outcome, destination.info.name],
      evaluatorVersion: "claims/1",
      generator: generator.id
    })
    const request: GenerationRequest = {
      recipe: "consolidate",
      fingerprint: fp,
      authoring,
      evidence: evidenceOf(sources, at),
      // R-GEN-1: the generator sees redacted text only.
      targets: sources.map((s) => ({ bundle: tier.info.name, path: s.path, content: String(redact(s.body)), ref: s.ref })),
      bundle: destination.info.name,
      instructions: instructionsFor(outcome, sources, contradictions.map((c) => `Until ${c.changedOn}: ${c.older.claim} — since ${c.changedOn}: ${c.newer.claim}`), target),
      allowedPaths: [target]
    }
    const generated = yield* Effect.either(generator.generate(request))
    if (Either.isLeft(generated)) {
      items.push({ ...base, retired: [], kept: [], qualified: [], skipped: `the generator failed (${generated.left.reason}: ${generated.left.message}); every source stays` })
      continue
    }
    if (generated.right._tag === "Packet") {
      // The agent answers through the packet: `akm proposal submit` runs the rest (completeGroup, submitPacket.ts).
      items.push({ ...base, path: target, retired: [], kept: [], qualified: [], packet: generated.right.id, skipped: `work packet ${generated.right.id} waits for an agent: write out/${target} as its TASK.md says, then \`akm proposal submit ${generated.right.id}\` checks it and proposes the consolidation` })
      continue
    }
    const file = generated.right.files.find((f) => f.content !== null)
    if (file === undefined || file.content === null) {
      items.push({ ...base, retired: [], kept: [], qualified: [], skipped: "the generator returned no file; every source stays" })
      continue
    }
    const done = yield* completeGroup({ tier, destination, outcome, sources, conceptId, title, content: file.content, generatorId: generator.id, at })
    items.push(done.item)
    retired.push(...done.retired)
    if (done.item.proposal !== undefined) proposalIds.push(done.item.proposal)
    if (done.item.skipped === undefined) reduced += done.item.retired.length - 1
  }
  return { items, retired, proposalIds } satisfies CompactResult as CompactResult
})
