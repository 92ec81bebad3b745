import * as path from "node:path"
import picomatch from "picomatch"
import { Effect, Either } from "effect"
import type { BundleAdapter, BundleInfo } from "../../domain/Adapter.js"
import type { Diagnostic } from "../../domain/Diagnostic.js"
import type { Evidence } from "../../domain/Evidence.js"
import type { FileChange } from "../../domain/FileChange.js"
import {
  answerCoverage,
  canaryQuery,
  droppedContent,
  MAX_WORD_LOSS,
  canarySample,
  EVALUATOR_VERSION,
  headingsOf,
  holdoutQueries,
  judge,
  protectedFieldChanges,
  type GateConfig,
  type ImproveRecipe,
  type QueryCheck
} from "../../domain/Improve.js"
import type { ChangeClass, Evaluation } from "../../domain/Proposal.js"
import { qualifyRef } from "../../domain/Search.js"
import type { CandidateFile } from "../../services/Generator.js"
import { Redactor } from "../../services/Redactor.js"
import { evaluateChanges } from "../proposals/evaluate.js"
import { now } from "../proposals/lookup.js"
import { refuseSecretValues } from "../proposals/secretGuard.js"
import { baselineSearch, candidateIndex, projectCandidate, rankIn, sandboxSearch, type Snapshot } from "./sandbox.js"

/** One file a recipe targets, as the run's snapshot holds it. */
export interface VerifyTarget {
  /** Bundle-relative path. */
  readonly path: string
  /** null = a file the recipe may create. */
  readonly before: string | null
  /** sha256 of the file's bytes as the snapshot read them (null = to create). */
  readonly beforeHash: string | null
  readonly ref?: string | undefined
  /** Queries of past searches that returned the target (holdouts: what found it must keep finding it). */
  readonly pastQueries?: ReadonlyArray<string> | undefined
}

export interface VerifyInput {
  readonly recipe: ImproveRecipe
  readonly info: BundleInfo
  readonly adapter: BundleAdapter
  readonly targets: ReadonlyArray<VerifyTarget>
  /** Patterns (bundle-relative, `<name>` = any one segment) a created file must match. */
  readonly allowedPaths: ReadonlyArray<string>
  readonly files: ReadonlyArray<CandidateFile>
  readonly evidence: ReadonlyArray<Evidence>
  readonly gate: GateConfig
  readonly snapshot: Snapshot
}

export type Verification =
  | { readonly _tag: "NoOp"; readonly reason: string }
  | {
    readonly _tag: "Failed"
    readonly level: 1 | 2
    readonly failures: ReadonlyArray<string>
    readonly metrics: Readonly<Record<string, number>>
  }
  | {
    readonly _tag: "Passed"
    readonly changes: ReadonlyArray<FileChange>
    readonly evaluation: Evaluation
    readonly changeClass: ChangeClass
    /** Adapter rule hashes of the evaluation (fingerprint inputs). */
    readonly guidance: ReadonlyArray<string>
  }

const REDACTED = /\[redacted:[a-z-]+\]/g
const placeholders = (text: string): number => text.match(REDACTED)?.length ?? 0

/** Words a stuffing check ignores. */
const STOP = new Set(["the", "a", "an", "and", "or", "to", "of", "in", "for", "on", "with", "is", "it", "be", "as", "by", "this", "that", "when", "how", "use"])

const wordsOf = (text: string): ReadonlyArray<string> => text.toLowerCase().match(/[\p{L}\p{N}]+/gu)?.filter((w) => w.length > 2 && !STOP.has(w)) ?? []

/**
 * Keyword stuffing: the words a candidate adds are dominated by a few
 * repeated ones (a word added 4+ times making up a quarter of what was added).
 */
export const stuffedWord = (before: string, after: string): string | undefined => {
  // One line (a heading, a description) that says one word four times is stuffing whatever else the file adds.
  const beforeLines = new Set(before.split("\n"))
  for (const line of after.split("\n")) {
    if (beforeLines.has(line)) continue
    const seen = new Map<string, number>()
    for (const w of wordsOf(line)) seen.set(w, (seen.get(w) ?? 0) + 1)
    const top = [...seen].find(([, n]) => n >= 4)
    if (top !== undefined) return top[0]
  }
  const count = (ws: ReadonlyArray<string>) => {
    const m = new Map<string, number>()
    for (const w of ws) m.set(w, (m.get(w) ?? 0) + 1)
    return m
  }
  const a = count(wordsOf(before))
  const b = count(wordsOf(after))
  let added = 0
  let top: [string, number] = ["", 0]
  for (const [w, n] of b) {
    const extra = n - (a.get(w) ?? 0)
    if (extra <= 0) continue
    added += extra
    if (extra > top[1]) top = [w, extra]
  }
  return top[1] >= 4 && top[1] >= added / 4 ? top[0] : undefined
}

/** `<name>`-style placeholders of an adapter's allowed paths match one path segment. */
const matcher = (patterns: ReadonlyArray<string>) => picomatch(patterns.map((p) => p.replace(/<[^>]+>/g, "*")), { dot: true })

const safePath = (p: string): string | undefined => {
  if (p.includes("\\") || p.includes("\0") || path.posix.isAbsolute(p)) return undefined
  const normal = path.posix.normalize(p).normalize("NFC")
  return normal.startsWith("../") || normal === ".." || normal === "." ? undefined : normal
}

/** Level 1 (spec 06 §6): safety, always. Returns the change set or why it is unsafe. */
const levelOne = (input: VerifyInput) =>
  Effect.gen(function* () {
    const failures: Array<string> = []
    const changes: Array<FileChange> = []
    const allowed = matcher(input.allowedPaths)
    const targets = new Map(input.targets.map((t) => [t.path, t]))
    const listing = new Set((input.snapshot.walks.get(input.info.name) ?? []).map((f) => f.path))
    const redactor = yield* Redactor
    const seen = new Set<string>()
    for (const file of input.files) {
      const p = safePath(file.path)
      if (p === undefined) {
        failures.push(`${file.path}: not a bundle-relative path (containment)`)
        continue
      }
      if (seen.has(p)) {
        failures.push(`${p}: written twice`)
        continue
      }
      seen.add(p)
      const target = targets.get(p)
      if (file.content === null) {
        failures.push(`${p}: a delete is destructive and never comes from ${input.recipe}`)
        continue
      }
      if (target === undefined && (input.recipe === "revise" || !allowed(p))) {
        failures.push(`${p}: outside the paths this ${input.recipe} may write (${input.recipe === "revise" ? input.targets.map((t) => t.path).join(", ") : input.allowedPaths.join(", ")})`)
        continue
      }
      const before = target?.before ?? null
      if (before === null && listing.has(p)) {
        failures.push(`${p}: already exists; a new item may not replace a file`)
        continue
      }
      const bytes = Buffer.byteLength(file.content)
      if (bytes > input.gate.maxFileBytes) {
        failures.push(`${p}: ${bytes} bytes, over the ${input.gate.maxFileBytes}-byte bound`)
        continue
      }
      if (before !== null && file.content === before) continue
      if (before !== null && input.recipe === "revise") {
        const changed = protectedFieldChanges(before, file.content)
        if (changed === "invalid") failures.push(`${p}: the frontmatter is not valid YAML`)
        else if (changed.length > 0) failures.push(`${p}: changes protected frontmatter field${changed.length === 1 ? "" : "s"} ${changed.join(", ")}`)
      }
      if (placeholders(file.content) > placeholders(before ?? "")) failures.push(`${p}: carries a redaction placeholder where the file had a value`)
      const redacted = yield* redactor.redact(file.content)
      const beforeRedacted = before === null ? "" : yield* redactor.redact(before)
      if (placeholders(redacted) - placeholders(file.content) > placeholders(beforeRedacted) - placeholders(before ?? "")) failures.push(`${p}: contains a secret value`)
      if (before !== null && input.recipe === "revise") {
        const dropped = droppedContent(before, file.content)
        if (dropped.headings.length > 0) failures.push(`${p}: drops the section${dropped.headings.length === 1 ? "" : "s"} ${dropped.headings.map((h) => `"${h}"`).join(", ")}`)
        else if (dropped.wordLoss > MAX_WORD_LOSS) failures.push(`${p}: drops ${Math.round(dropped.wordLoss * 100)}% of the item's words`)
      }
      if (before === null && input.recipe === "learn") {
        const asked = input.evidence.flatMap((e) => (e.query === undefined ? [] : [e.query]))
        const missed = asked.filter((q) => answerCoverage(q, file.content!) < 0.5)
        if (missed.length > 0) failures.push(`${p}: does not answer "${missed[0]}"`)
      }
      const stuffed = stuffedWord(before ?? "", file.content)
      if (stuffed !== undefined) failures.push(`${p}: keyword stuffing ("${stuffed}" repeated)`)
      const change: FileChange = { bundle: input.info.name, path: p, beforeHash: target?.beforeHash ?? null, after: file.content }
      const secret = yield* Effect.either(refuseSecretValues(change, input.adapter.id))
      if (Either.isLeft(secret)) failures.push(secret.left.message)
      changes.push(change)
    }
    if (failures.length > 0) return { _tag: "Failed" as const, failures }
    if (changes.length === 0) return { _tag: "NoOp" as const, reason: input.files.length === 0 ? "the generator returned no files" : "the candidate changes nothing" }
    const evaluated = yield* evaluateChanges(changes)
    const introduced = evaluated.evaluation.diagnostics
    for (const d of introduced) {
      if (d.severity === "error" || /link|ref/i.test(d.code)) failures.push(`${d.path}: ${d.message} [${d.code}]`)
    }
    if (failures.length > 0) return { _tag: "Failed" as const, failures }
    return { _tag: "Safe" as const, changes, evaluated }
  })

const info = (code: string, p: string, message: string): Diagnostic => ({ code, severity: "info", path: p, message })

/** Level 2 (spec 06 §6): the candidate against the baseline in two sandbox indexes. */
const levelTwo = (input: VerifyInput, changes: ReadonlyArray<FileChange>) =>
  Effect.gen(function* () {
    const { snapshot, gate } = input
    const candidateDocs = yield* projectCandidate(snapshot, input.info, input.adapter, changes)
    const targetRefs = input.targets.flatMap((t) => (t.ref === undefined ? [] : [t.ref]))
    const expected = targetRefs[0] ?? candidateDocs[0]?.ref
    const candidate = yield* candidateIndex(snapshot, candidateDocs, [])
    const checks: Array<QueryCheck> = []
    const check = (kind: QueryCheck["kind"], query: string, ref: string) =>
      Effect.gen(function* () {
        const before = yield* baselineSearch(snapshot, query, gate.depth, "current")
        const after = yield* sandboxSearch(candidate, query, gate.depth, "current")
        checks.push({ kind, query, expected: ref, before: rankIn(before, ref), after: rankIn(after, ref) })
      })
    if (expected !== undefined) {
      const triggers = [...new Set(input.evidence.flatMap((e) => {
        const q = (e.query ?? (e.kind === "lint-error" || e.kind === "broken-link" ? undefined : e.note))?.replace(/\s+/g, " ").trim()
        return q === undefined || q === "" ? [] : [q.split(" ").slice(0, 12).join(" ")]
      }))]
      for (const q of triggers) yield* check("trigger", q, expected)
      const baseDoc = snapshot.docs.get(expected)
      if (baseDoc !== undefined) {
        const headings = baseDoc.outline?.map((h) => h.text) ?? headingsOf(input.targets[0]?.before ?? "")
        for (const q of holdoutQueries({ name: baseDoc.name, description: baseDoc.description, headings }, input.targets[0]?.pastQueries ?? [])) yield* check("holdout", q, expected)
      }
    }
    const exclude = new Set([...targetRefs, ...candidateDocs.map((d) => d.ref)])
    for (const ref of canarySample([...snapshot.docs.keys()], exclude, gate.canaries)) {
      const doc = snapshot.docs.get(ref)!
      yield* check("canary", canaryQuery(doc), ref)
    }
    // Banned: a superseded item must not leapfrog its successor (the pairs the candidate touches, then a few others).
    const pairs = [...snapshot.docs.values()]
      .filter((d) => d.supersededBy !== undefined)
      .map((d) => ({ old: d.ref, successor: qualifyRef(d.bundle, d.supersededBy!) }))
      .filter((p) => snapshot.docs.has(p.successor))
      .sort((a, b) => Number(exclude.has(b.old) || exclude.has(b.successor)) - Number(exclude.has(a.old) || exclude.has(a.successor)) || (a.old < b.old ? -1 : 1))
      .slice(0, 4)
    for (const pair of pairs) {
      const query = canaryQuery(snapshot.docs.get(pair.successor)!)
      const before = yield* baselineSearch(snapshot, query, gate.depth, "all")
      const after = yield* sandboxSearch(candidate, query, gate.depth, "all")
      checks.push({
        kind: "banned",
        query,
        expected: pair.successor,
        before: rankIn(before, pair.successor),
        after: rankIn(after, pair.successor),
        banned: pair.old,
        bannedBefore: rankIn(before, pair.old),
        bannedAfter: rankIn(after, pair.old)
      })
    }
    const verdict = judge(checks, gate, { mustFind: input.recipe === "learn" })
    const where = changes[0]!.path
    const rank = (n: number) => (n === 0 ? "–" : String(n))
    const diagnostics = checks.map((c) =>
      info(`l2-${c.kind}`, where, `"${c.query}" → ${c.expected}: rank ${rank(c.before)} → ${rank(c.after)}${c.banned === undefined ? "" : `; ${c.banned} ${rank(c.bannedBefore ?? 0)} → ${rank(c.bannedAfter ?? 0)}`}`)
    )
    return { verdict, diagnostics, triggers: checks.filter((c) => c.kind === "trigger").length }
  })

/**
 * The verification ladder for one candidate (spec 06 §6): Level 1 safety
 * always, then Level 2 comparison with the baseline. Only these checks
 * decide; nothing the generator said is an input here (R-IMP-8).
 */
export const verifyCandidate = Effect.fn("improve.verify")(function* (input: VerifyInput) {
  const one = yield* levelOne(input)
  if (one._tag === "NoOp") return { _tag: "NoOp", reason: one.reason } satisfies Verification as Verification
  if (one._tag === "Failed") return { _tag: "Failed", level: 1, failures: one.failures, metrics: { "l1.pass": 0 } } satisfies Verification as Verification
  const two = yield* levelTwo(input, one.changes)
  const metrics = { "l1.pass": 1, ...two.verdict.metrics }
  if (!two.verdict.pass) return { _tag: "Failed", level: 2, failures: two.verdict.failures, metrics } satisfies Verification as Verification
  const where = one.changes[0]!.path
  const evaluation: Evaluation = {
    verdict: "pass",
    diagnostics: [
      ...one.evaluated.evaluation.diagnostics,
      info("l1-safety", where, "containment, before-hashes, protected fields, links, secrets and size: ok"),
      ...two.diagnostics
    ],
    metrics,
    evaluator: `${EVALUATOR_VERSION},${one.evaluated.evaluator}`,
    at: yield* now
  }
  // Verified-semantic only when the retrieval comparison had something to prove (R-IMP-9).
  const changeClass: ChangeClass = two.triggers > 0 ? "verified-semantic" : "semantic"
  return { _tag: "Passed", changes: one.changes, evaluation, changeClass, guidance: one.evaluated.guidance } satisfies Verification as Verification
})
