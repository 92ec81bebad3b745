import type { Effect } from "effect"
import type { ValidateContext } from "../Adapter.js"
import type { FileChange } from "../FileChange.js"

/**
 * The narrow operational record a memory-capable adapter gives core (spec 06
 * §8.1, seed 002 §10.2): core owns pressure, selection, retirement, archive
 * and purge; the adapter owns discovery, native metadata and serialisation.
 */
export interface MemoryRecord {
  /** `bundle//conceptId`. */
  readonly ref: string
  /** Bundle-relative path of the memory's file. */
  readonly path: string
  /** sha256 (hex) of the file's bytes: a FileChange's beforeHash and the archive digest. */
  readonly hash: string
  readonly bytes: number
  /** ISO time the memory was observed (frontmatter `observedAt`/`created`, else the file's mtime). */
  readonly observedAt?: string | undefined
  /** ISO time after which it is expired; absent when it never expires or the value is unreadable (see problems). */
  readonly expires?: string | undefined
  /** Fully qualified ref of the memory that replaces this one. */
  readonly supersededBy?: string | undefined
  /** Native semantic state (asserted, superseded, contradicted …), separate from the lifecycle state. */
  readonly beliefState?: string | undefined
  readonly scope?: Readonly<Record<string, string>> | undefined
  /** Fully qualified refs this memory replaces (`akm remember --supersedes`). */
  readonly supersedes?: ReadonlyArray<string> | undefined
  /** Fully qualified ref of the item a generated memory was derived from. */
  readonly derivedFrom?: string | undefined
  /** The text without frontmatter. */
  readonly body: string
  /** What is wrong with the file's metadata (broken frontmatter, an unknown expires format); never a reason to retire it. */
  readonly problems: ReadonlyArray<MemoryProblem>
}

export interface MemoryProblem {
  readonly code: "broken-frontmatter" | "unknown-expires" | "supersession-cycle" | "unknown-successor"
  readonly line?: number | undefined
  readonly message: string
}

/** What core asks an adapter to write: files to remove from the tier and files to (re)create. */
export interface MemoryPlan {
  readonly bundle: string
  readonly retire: ReadonlyArray<{ readonly path: string; readonly hash: string }>
  readonly write: ReadonlyArray<{ readonly path: string; readonly text: string; readonly beforeHash: string | null }>
}

/**
 * The facet on the adapter contract. `dir` is where `akm remember` writes
 * (akm and OKF: memories/, project: memory/).
 */
export interface MemoryFacet {
  readonly dir: string
  readonly list: (ctx: ValidateContext) => Effect.Effect<ReadonlyArray<MemoryRecord>>
  readonly render: (plan: MemoryPlan) => ReadonlyArray<FileChange>
}

const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/**
 * `--expires` and the frontmatter `expires`: a duration from now (`30d`, `12h`,
 * `2w`, `90m`) or an ISO date/time. A past date is already expired. Returns
 * the ISO time, or a reason it cannot be read.
 */
export const parseExpires = (value: unknown, nowMs: number): { readonly at: string } | { readonly reason: string } => {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? { reason: "not a valid date" } : { at: value.toISOString() }
  if (typeof value !== "string" && typeof value !== "number") return { reason: `expected a duration such as 30d or an ISO date, actual ${JSON.stringify(value)}` }
  const text = String(value).trim()
  const duration = /^(\d+)\s*([mhdw])$/i.exec(text)
  if (duration !== null) return { at: new Date(nowMs + Number(duration[1]) * UNITS[duration[2]!.toLowerCase()]!).toISOString() }
  if (/^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) {
    const ms = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text)
    if (!Number.isNaN(ms)) return { at: new Date(ms).toISOString() }
  }
  return { reason: `'${text}' is neither a duration (30d, 12h, 2w, 90m) nor an ISO date (2026-03-01)` }
}

/** Content as duplicates compare it: case, markdown emphasis, punctuation runs and whitespace folded. */
export const normalisedContent = (body: string): string =>
  body
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[`*_>#~]/g, "")
    .replace(/[.,;:!?]+(?=\s|$)/g, "")
    .replace(/\s+/g, " ")
    .trim()
