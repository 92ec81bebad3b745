import { Effect } from "effect"
import type { EvidenceInput } from "../../domain/Evidence.js"
import { UsageLog, type UsageEvent } from "../../services/UsageLog.js"

/** How many usage events one collection reads, newest first. */
const USAGE_WINDOW = 20_000

/** A read this soon after a search is its follow-up: the usage log's select window (layers/sqlite/usage.ts). */
const FOLLOW_WINDOW_MS = 30 * 60 * 1000

const day = (at: string) => at.slice(0, 10)

/**
 * Failed searches, conservatively (docs/decisions/0016-evidence.md): a search
 * is evidence only when the usage log itself shows it failed —
 *   1. the next event of the same caller is a `show` (not a `select`) within
 *      the select window: the item read was not among the results, so the
 *      query should have found it → `failed-search` about that ref;
 *   2. otherwise a search that returned nothing → `failed-search` without a
 *      ref (it asks for an item that may not exist).
 * Results that were merely not opened say nothing (an agent often reads the
 * snippets), and audit runs never count. One caller on one day is one
 * independent observation (R-IMP-2).
 */
export const usageEvidence = (events: ReadonlyArray<UsageEvent>): ReadonlyArray<EvidenceInput> => {
  const ordered = [...events].filter((e) => e.source !== "audit").sort((a, b) => a.id - b.id)
  const out: Array<EvidenceInput> = []
  ordered.forEach((event, i) => {
    const query = event.query?.trim() ?? ""
    if (event.kind !== "search" || query === "") return
    const next = ordered.slice(i + 1).find((e) => e.source === event.source)
    const refs = event.refs ?? []
    const base = { kind: "failed-search", source: "search", query, independenceKey: `search/${event.source}/${day(event.at)}`, origin: `usage:${event.id}`, observedAt: event.at } as const
    if (next !== undefined && next.kind === "show" && next.ref !== undefined && Date.parse(next.at) - Date.parse(event.at) <= FOLLOW_WINDOW_MS) {
      out.push({
        ...base,
        ref: next.ref,
        note: refs.length === 0
          ? `searched "${query}": no results; ${next.ref} was opened next`
          : `searched "${query}": ${next.ref} was not among the ${refs.length} results and was opened next`
      })
    } else if (refs.length === 0) {
      out.push({ ...base, note: `searched "${query}": no results` })
    }
  })
  return out
}

export const evidenceFromUsage = Effect.map(Effect.flatMap(UsageLog, (usage) => usage.events({ limit: USAGE_WINDOW })), usageEvidence)
