import { Effect } from "effect"
import { claimCoverage } from "../../domain/memory/Claims.js"
import type { ClaimDisposition } from "../../domain/memory/Cleanup.js"
import { MemoryArchive } from "../../services/MemoryArchive.js"
import { MemoryStore, type NewArchiveEntry } from "../../services/MemoryStore.js"
import { IndexStore } from "../../services/IndexStore.js"
import { ProposalStore } from "../../services/ProposalStore.js"
import { indexBundles } from "../indexBundles.js"
import { splitFrontmatter } from "../import.js"
import { CONSOLIDATE_RECIPE, FORMALIZE_RECIPE } from "./recipes.js"

const textOf = (bytes: string | Uint8Array | undefined): string => (bytes === undefined ? "" : typeof bytes === "string" ? bytes : new TextDecoder().decode(bytes))

const dispositionsOf = (coverage: ReturnType<typeof claimCoverage>, successors: ReadonlyArray<string>): ReadonlyArray<ClaimDisposition> =>
  coverage.map((c): ClaimDisposition =>
    c.covered ? { claim: c.claim.text, disposition: "in-successor", by: successors[c.coveredBy ?? 0]! } : { claim: c.claim.text, disposition: "discarded", by: `accepted by review (${c.reason})` })

/**
 * Semantic consolidations always wait for review (R-IMP-9), so their sources
 * leave the tier when someone runs `akm proposal accept`, not when
 * consolidate ran. This records those retirements in state.db afterwards:
 * for every accepted consolidation or formalisation with no archive row yet,
 * each deleted source whose bytes the archive holds gets a row, with its
 * claims' dispositions checked again against the item the proposal wrote
 * (R-MEM-3). Idempotent; run at the start of the memory commands.
 */
export const recordAcceptedRetirements = Effect.fn("memory.catchUp")(function* () {
  const proposals = yield* ProposalStore
  const store = yield* MemoryStore
  const archive = yield* MemoryArchive
  const known = new Set((yield* store.list({})).flatMap((r) => (r.proposalId === undefined ? [] : [r.proposalId])))
  const entries: Array<NewArchiveEntry> = []
  const overlays: Array<{ readonly bundle: string; readonly ref: string; readonly hash: string }> = []
  for (const recipe of [CONSOLIDATE_RECIPE, FORMALIZE_RECIPE]) {
    for (const summary of yield* proposals.list({ status: "accepted", recipe, limit: 10_000 })) {
      if (known.has(summary.id)) continue
      const proposal = yield* proposals.get(summary.id)
      if (proposal === undefined) continue
      const created = proposal.changes.filter((c) => c.delete !== true && c.beforeHash === null)
      // Only consolidations that wrote the successor themselves are caught up here; the others record their rows when they apply.
      if (created.length === 0) continue
      const successors = created.map((c) => `${c.bundle}//${c.path.replace(/\.md$/, "")}`)
      const bodies = created.map((c) => splitFrontmatter(textOf(c.after)).body)
      const at = proposal.decidedAt ?? proposal.createdAt
      // A read-only tier's sources: named by the evidence, not deleted; an overlay masks them (R-MEM-5).
      const deleted = new Set(proposal.changes.filter((c) => c.delete === true).map((c) => `${c.bundle}//${c.path.replace(/\.md$/, "")}`))
      for (const source of proposal.evidence) {
        if (source.ref === undefined || source.hash === undefined || deleted.has(source.ref) || !source.ref.includes("//")) continue
        const bytes = yield* archive.read(source.hash)
        if (bytes === undefined) continue
        const coverage = claimCoverage(splitFrontmatter(textOf(bytes)).body, bodies)
        const bundle = source.ref.slice(0, source.ref.indexOf("//"))
        entries.push({
          bundle,
          ref: source.ref,
          path: `${source.ref.slice(bundle.length + 2)}.md`,
          digest: source.hash,
          bytes: bytes.byteLength,
          state: "retired",
          // Formalize titles its proposal so (compact.ts); both go through one-phase apply here.
          reason: proposal.title.startsWith("Formalize") ? "formalized" : "compacted",
          successors,
          dispositions: dispositionsOf(coverage, successors),
          proposalId: proposal.id,
          retiredAt: at,
          overlay: true
        })
        overlays.push({ bundle, ref: source.ref, hash: source.hash })
      }
      for (const change of proposal.changes) {
        if (change.delete !== true || change.beforeHash === null || change.beforeHash === undefined) continue
        const bytes = yield* archive.read(change.beforeHash)
        if (bytes === undefined) continue
        const coverage = claimCoverage(splitFrontmatter(textOf(bytes)).body, bodies)
        const dispositions = dispositionsOf(coverage, successors)
        entries.push({
          bundle: change.bundle,
          ref: `${change.bundle}//${change.path.replace(/\.md$/, "")}`,
          path: change.path,
          digest: change.beforeHash,
          bytes: bytes.byteLength,
          state: "retired",
          reason: recipe === FORMALIZE_RECIPE ? "formalized" : "compacted",
          successors,
          dispositions,
          proposalId: proposal.id,
          retiredAt: at,
          overlay: false
        })
      }
    }
  }
  if (entries.length > 0) yield* store.record(entries)
  for (const bundle of new Set(overlays.map((o) => o.bundle))) {
    // The index must hold the current rows before the overlay marks them (as cleanup does, consolidate.ts).
    yield* indexBundles({ bundle })
    yield* (yield* IndexStore).retireOverlay(overlays.filter((o) => o.bundle === bundle))
  }
  return entries.length
})
