import { Effect, Either } from "effect"
import type { BundleAdapter } from "../domain/Adapter.js"
import { compareDiagnostics, countBySeverity, type Diagnostic, type Severity } from "../domain/Diagnostic.js"
import type { FileChange } from "../domain/FileChange.js"
import { actionOf, shortId } from "../domain/Proposal.js"
import { ProposalStore } from "../services/ProposalStore.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { bundleNotFound } from "./bundle/show.js"
import { verifyProject } from "./ledger/verify.js"
import { proposeAndApply } from "./proposals/direct.js"
import { recoverWrites } from "./proposals/recover.js"
import { resolveBundle, scanWith } from "./scan.js"

export interface LintInput {
  /** One bundle; default every configured bundle in config order. */
  readonly bundle?: string | undefined
  /** Conformance findings take their rule's strict severity (e.g. okf-nonconformant → error). */
  readonly strict: boolean
  readonly fix: boolean
  /** "warning" also fails on warnings. */
  readonly failOn: "error" | "warning"
}

export interface Counts {
  readonly error: number
  readonly warning: number
  readonly info: number
}

export interface LintDiagnostic {
  readonly code: string
  readonly severity: Severity
  readonly line?: number
  readonly message: string
  readonly ref?: string
  /** `lint --fix` can repair it. */
  readonly fixable?: true
}

export interface LintFile {
  /** Bundle-relative. */
  readonly path: string
  readonly diagnostics: ReadonlyArray<LintDiagnostic>
}

export interface LintFix {
  /** Diagnostics that carried a fix. */
  readonly available: number
  /** Diagnostics whose fix was written. */
  readonly applied: number
  /** Why nothing (or not everything) was applied. */
  readonly note?: string
  /** The proposal that carries the fixes (`akm proposal show`, `revert`). */
  readonly proposal?: string
  /** Semantic fixes (a skill folder rename): proposed for review, never applied by `lint --fix`. */
  readonly review?: { readonly proposal: string; readonly fixes: number }
}

export interface LintBundle {
  readonly bundle: string
  readonly adapter: string
  readonly root: string
  readonly items: number
  readonly counts: Counts
  readonly files: ReadonlyArray<LintFile>
  /** Present with --fix. */
  readonly fix?: LintFix
  /** The root could not be read (`root-missing`): nothing was linted, and the bundle's indexed items are stale (R-AD-8). */
  readonly stale?: true
}

/** The result of `akm lint` (documented in docs/cli.md). */
export interface LintResult {
  readonly bundles: ReadonlyArray<LintBundle>
  readonly counts: Counts
  /** False when an error remains (or a warning with failOn "warning"): the command exits 1. */
  readonly ok: boolean
}

/** Under --strict a rule's strictSeverity replaces its severity (spec 03 §1). */
export const applyStrict = (adapter: BundleAdapter, diagnostics: ReadonlyArray<Diagnostic>): ReadonlyArray<Diagnostic> => {
  const strict = new Map(adapter.rules.flatMap((rule) => (rule.strictSeverity === undefined ? [] : [[rule.code, rule.strictSeverity] as const])))
  return diagnostics.map((d) => {
    const severity = strict.get(d.code)
    return severity === undefined || severity === d.severity ? d : { ...d, severity }
  }).sort(compareDiagnostics)
}

/** Groups diagnostics by file, keeping their (already sorted) order. */
export const groupByFile = (diagnostics: ReadonlyArray<Diagnostic>): ReadonlyArray<LintFile> => {
  const files = new Map<string, Array<LintDiagnostic>>()
  for (const d of diagnostics) {
    const list = files.get(d.path) ?? []
    list.push({
      code: d.code,
      severity: d.severity,
      ...(d.line === undefined ? {} : { line: d.line }),
      message: d.message,
      ...(d.ref === undefined ? {} : { ref: d.ref }),
      ...(d.fix === undefined || d.fix.length === 0 ? {} : { fixable: true as const })
    })
    files.set(d.path, list)
  }
  return [...files].map(([p, list]) => ({ path: p, diagnostics: list }))
}

/**
 * The fixes to write in one set: each diagnostic's changes, skipping a fix
 * that touches a path an earlier fix already changes (its before-hash would be
 * stale; the next `lint --fix` picks it up).
 */
export const collectFixes = (
  bundle: string,
  diagnostics: ReadonlyArray<Diagnostic>,
  fixClass: "mechanical" | "semantic" = "mechanical"
): { readonly changes: ReadonlyArray<FileChange>; readonly fixes: number; readonly available: number } => {
  const changes: Array<FileChange> = []
  const touched = new Set<string>()
  let fixes = 0
  let available = 0
  for (const d of diagnostics) {
    if (d.fix === undefined || d.fix.length === 0 || (d.fixClass ?? "mechanical") !== fixClass) continue
    available++
    if (d.fix.some((c) => c.bundle !== bundle || touched.has(c.path))) continue
    for (const c of d.fix) {
      touched.add(c.path)
      changes.push(c)
    }
    fixes++
  }
  return { changes, fixes, available }
}

/** The id of a pending lint-fix proposal of this bundle that makes exactly these changes (by path and action). */
const pendingWith = (bundle: string, changes: ReadonlyArray<FileChange>) =>
  Effect.gen(function* () {
    const pending = yield* (yield* ProposalStore).list({ status: "pending", recipe: "lint-fix", bundle })
    const key = (files: ReadonlyArray<{ readonly path: string; readonly action: string }>) => files.map((f) => `${f.action} ${f.path}`).sort().join("\n")
    const wanted = key(changes.map((c) => ({ path: c.path, action: actionOf(c) })))
    return pending.find((p) => key(p.files) === wanted)?.id
  })

/** A bundle whose root cannot be read: one `root-missing` error, so the other bundles are still linted. */
const rootMissing = (bundle: string, adapter: string, root: string, reason: string): LintBundle => {
  const diagnostics: ReadonlyArray<Diagnostic> = [{
    code: "root-missing",
    severity: "error",
    path: ".",
    message: `the bundle root ${root} cannot be read (${reason}); its indexed items are stale — restore the folder or remove the bundle`
  }]
  return { bundle, adapter, root, items: 0, counts: countBySeverity(diagnostics), files: groupByFile(diagnostics), stale: true }
}

const sumCounts = (all: ReadonlyArray<Counts>): Counts =>
  all.reduce((a, b) => ({ error: a.error + b.error, warning: a.warning + b.warning, info: a.info + b.info }), { error: 0, warning: 0, info: 0 })

/**
 * `akm lint`: scans each bundle (never writing, R-AD-7) and reports its
 * diagnostics grouped by file. With --fix, every diagnostic's fix goes into
 * one proposal that is accepted in the same step when policy allows, then the
 * bundle is scanned again so the report shows what remains.
 */
/** Ledger findings across records (spec 08 §2): the adapter reports each file on its own, these need the whole ledger. */
const CROSS_RECORD = new Set(["duplicate-ledger-id", "duplicate-fingerprint", "fingerprint-mismatch"])

const ledgerDiagnostics = (name: string, root: string) =>
  Effect.map(Effect.orElseSucceed(verifyProject({ name, root }), () => undefined), (result): ReadonlyArray<Diagnostic> =>
    (result?.findings ?? []).filter((f) => CROSS_RECORD.has(f.code)).map((f) => ({ code: f.code, severity: f.severity, path: f.path, line: f.line, message: f.message })))

export const lint = Effect.fn("lint")(function* (input: LintInput) {
  const workspace = yield* WorkspaceConfig
  const config = yield* workspace.read
  const names = Object.keys(config.bundles)
  if (input.bundle !== undefined && !names.includes(input.bundle)) return yield* bundleNotFound(input.bundle, names)
  const selected = input.bundle === undefined ? names : [input.bundle]
  // A writing command resolves interrupted transactions first (R-TX-5).
  if (input.fix) yield* recoverWrites()

  const bundles: Array<LintBundle> = []
  for (const name of selected) {
    const { info, adapter } = yield* resolveBundle(name)
    const scanned = yield* Effect.either(scanWith(info, adapter))
    if (Either.isLeft(scanned)) {
      bundles.push(rootMissing(name, adapter.id, info.root, scanned.left.reason))
      continue
    }
    let scan = scanned.right
    let fix: LintFix | undefined
    if (input.fix) {
      const mechanical = collectFixes(name, scan.diagnostics)
      const semantic = collectFixes(name, scan.diagnostics, "semantic")
      const available = mechanical.available + semantic.available
      const evidence = (fixClass: "mechanical" | "semantic") =>
        scan.diagnostics
          .filter((d) => d.fix !== undefined && d.fix.length > 0 && (d.fixClass ?? "mechanical") === fixClass)
          .map((d) => ({ kind: "lint-error", id: d.code, ...(d.ref === undefined ? {} : { ref: d.ref }), note: `${d.path}: ${d.message}` }))
      if (available === 0) fix = { available: 0, applied: 0 }
      else if (!info.writable || !adapter.writable) {
        fix = {
          available,
          applied: 0,
          note: !info.writable
            ? `bundle '${name}' is read-only; fixes cannot be applied`
            : `the ${adapter.id} adapter has no authoring path; fixes cannot be applied`
        }
      } else {
        // A semantic fix changes identity (a skill's ref): it becomes a proposal for review, whatever the policy.
        // The same renames already waiting for review are that proposal, not a second one.
        const waiting = semantic.fixes === 0 ? undefined : yield* pendingWith(name, semantic.changes)
        const review = semantic.fixes === 0
          ? undefined
          : waiting !== undefined
          ? { proposal: waiting, fixes: semantic.fixes }
          : yield* proposeAndApply({
            title: `akm lint --fix (${name}): rename skill folders to their names`,
            recipe: "lint-fix",
            changeClass: "semantic",
            changes: semantic.changes,
            evidence: evidence("semantic"),
            bundle: name,
            root: info.root
          }).pipe(Effect.map((proposed) => ({ proposal: proposed.id, fixes: semantic.fixes })))
        const proposed = mechanical.fixes === 0
          ? undefined
          : yield* proposeAndApply({
            title: `akm lint --fix (${name})`,
            recipe: "lint-fix",
            changeClass: "mechanical",
            changes: mechanical.changes,
            evidence: evidence("mechanical"),
            bundle: name,
            root: info.root
          })
        const applied = proposed?.status === "accepted"
        if (applied) scan = yield* scanWith(info, adapter)
        const notes = [
          ...(proposed !== undefined && !applied ? [proposed.hint ?? `proposal ${proposed.id} is ${proposed.status}`] : []),
          ...(applied && mechanical.fixes < mechanical.available ? ["some fixes touch the same file; run `akm lint --fix` again to apply the rest"] : []),
          ...(review === undefined ? [] : [`${review.fixes} folder rename${review.fixes === 1 ? "" : "s"} await${review.fixes === 1 ? "s" : ""} review: \`akm proposal show ${shortId(review.proposal)}\``])
        ]
        fix = {
          available,
          applied: applied ? mechanical.fixes : 0,
          ...(proposed === undefined ? {} : { proposal: proposed.id }),
          ...(notes.length === 0 ? {} : { note: notes.join("; ") }),
          ...(review === undefined ? {} : { review })
        }
      }
    }
    const own = input.strict ? applyStrict(adapter, scan.diagnostics) : scan.diagnostics
    const diagnostics = adapter.id === "project" ? [...own, ...(yield* ledgerDiagnostics(info.name, info.root))].sort(compareDiagnostics) : own
    bundles.push({
      bundle: name,
      adapter: adapter.id,
      root: info.root,
      items: scan.documents.length,
      counts: countBySeverity(diagnostics),
      files: groupByFile(diagnostics),
      ...(fix === undefined ? {} : { fix })
    })
  }
  const counts = sumCounts(bundles.map((b) => b.counts))
  return {
    bundles,
    counts,
    ok: counts.error === 0 && (input.failOn === "error" || counts.warning === 0)
  } satisfies LintResult as LintResult
})
