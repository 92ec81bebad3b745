import { Clock, Effect } from "effect"
import { Conflict, UsageError } from "../../domain/Errors.js"
import type { MemoryRecord } from "../../domain/memory/MemoryRecord.js"
import type { PacketManifest } from "../../domain/Packet.js"
import { sha256Hex } from "../../domain/Proposal.js"
import type { CandidateFile } from "../../services/Generator.js"
import type { SubmitResult } from "../../services/Improve.js"
import { Redactor } from "../../services/Redactor.js"
import { completeGroup, destinationOf, groupTitle, type Destination } from "./compact.js"
import { readTier } from "./tiers.js"

/**
 * `akm proposal submit` of a `consolidate` work packet (the agent generator
 * of `akm memory consolidate`): the agent's text goes through exactly what a
 * model's answer goes through (completeGroup) — contradictions kept, the claim
 * check per source, covered sources archived, one semantic proposal that
 * retires them once accepted. The sources must still be the bytes the packet
 * was written from; a source changed or retired since refuses the packet.
 */
export const submitConsolidationPacket = Effect.fn("memory.packet.submit")(function* (packetId: string, manifest: PacketManifest, files: ReadonlyArray<CandidateFile>) {
  const again = "run `akm memory consolidate` again for a fresh packet; nothing was written"
  const sourceBundle = manifest.targets[0]?.ref?.split("//")[0]
  const target = manifest.allowedPaths[0]
  if (sourceBundle === undefined || target === undefined || !target.endsWith(".md")) {
    return yield* new UsageError({ message: `packet ${packetId} names no memory sources or no item to write`, hint: again })
  }
  const tier = yield* readTier(sourceBundle)
  if (tier === undefined) return yield* new Conflict({ message: `bundle '${sourceBundle}' of packet ${packetId} has no memory tier any more`, hint: again })
  const redact = yield* (yield* Redactor).snapshot
  const sources: Array<MemoryRecord> = []
  for (const t of manifest.targets) {
    // The packet's before-hash is of the redacted body the agent was shown.
    const record = tier.active.find((r) => r.path === t.path)
    if (record === undefined || sha256Hex(String(redact(record.body))) !== t.beforeHash) {
      return yield* new Conflict({ message: `${sourceBundle}//${t.path} changed or was retired since packet ${packetId} was written`, hint: again })
    }
    sources.push(record)
  }
  // A read-only tier compacts into another bundle's memory folder; anything else in another bundle is a formalize.
  const into = manifest.bundle === tier.info.name ? tier : yield* readTier(manifest.bundle)
  const outcome = into !== undefined && target.startsWith(`${into.facet.dir}/`) ? "compact" as const : "formalize" as const
  const destination: Destination = outcome === "compact" ? { info: tier.info, adapter: tier.adapter } : yield* destinationOf(manifest.bundle)
  const file = files.find((f) => f.path === target)
  if (file === undefined || file.content === null) {
    return yield* new UsageError({ message: `packet ${packetId}: out/ holds no ${target}`, hint: `write the consolidated item to out/${target} as TASK.md says, then submit again` })
  }
  const done = yield* completeGroup({
    tier,
    destination,
    outcome,
    sources,
    conceptId: target.slice(0, -".md".length),
    title: groupTitle(sources, redact),
    content: file.content,
    generatorId: "agent",
    at: new Date(yield* Clock.currentTimeMillis).toISOString()
  }).pipe(
    // A semantic proposal is only made here (never applied), so these mean the item could not be proposed.
    Effect.catchTags({
      TransactionRefused: (e) => new Conflict({ message: `packet ${packetId}: ${e.message}`, hint: e.hint }),
      StaleBeforeHash: (e) => new Conflict({ message: `packet ${packetId}: ${e.message}`, hint: again }),
      ValidationFailed: (e) => new Conflict({ message: `packet ${packetId}: the consolidated item does not validate: ${e.message}`, hint: `fix out/${target}, then submit again` })
    })
  )
  const { item } = done
  return {
    packetId,
    outcome: item.proposal === undefined ? "no-op" : item.proposal.status === "accepted" ? "auto-applied" : "proposed",
    ...(item.proposal === undefined ? {} : { proposalId: item.proposal.id }),
    failures: [
      ...(item.skipped === undefined ? [] : [item.skipped]),
      ...item.kept.map((k) => `kept ${k.ref}: "${k.claim}" is not in the new item (${k.reason})`)
    ],
    metrics: { sources: item.sources.length, retired: item.retired.length, kept: item.kept.length }
  } satisfies SubmitResult as SubmitResult
})
