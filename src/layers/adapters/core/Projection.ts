import type { Projection } from "../../../domain/Adapter.js"
import { normalizeTag, uniqueTags } from "../../../domain/Tag.js"

export { normalizeTag, uniqueTags }

/**
 * The one helper that folds richer metadata into the searchable fields (spec 04
 * §1), so every adapter projects the same way: tags keep their written form
 * (matching normalises them, domain/Tag.ts); extra string-ish fields become hints.
 */

export const uniqueSorted = (values: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(values.filter((v) => v !== ""))].sort()

/** Flattens scalar and list values of metadata fields into hint strings, in key order. */
export const metadataHints = (data: Readonly<Record<string, unknown>> | undefined, keys: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (data === undefined) return []
  const hints: Array<string> = []
  const visit = (value: unknown, depth: number): void => {
    if (depth > 3 || value === null || value === undefined) return
    if (typeof value === "string") {
      if (value.trim() !== "") hints.push(value.trim())
    } else if (typeof value === "number" || typeof value === "boolean") {
      hints.push(String(value))
    } else if (Array.isArray(value)) {
      for (const v of value) visit(v, depth + 1)
    } else if (typeof value === "object") {
      for (const v of Object.values(value)) visit(v, depth + 1)
    }
  }
  for (const key of keys) visit(data[key], 0)
  return hints
}

export interface ProjectionParts {
  readonly type?: string | undefined
  readonly name: string
  readonly description?: string | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly aliases?: ReadonlyArray<string> | undefined
  readonly hints?: ReadonlyArray<string> | undefined
  readonly outline?: ReadonlyArray<{ readonly depth: number; readonly text: string; readonly slug: string }> | undefined
  readonly content?: string | undefined
  readonly links?: ReadonlyArray<string> | undefined
}

/**
 * Assembles a Projection: tags + aliases as written into `tags` (one per normal form), outline
 * headings appended to `hints`, empty fields left out so identical inputs give
 * identical documents (R-AD-2).
 */
export const makeProjection = (parts: ProjectionParts, extra: Partial<Projection> = {}): Projection => {
  const tags = uniqueTags([...(parts.tags ?? []), ...(parts.aliases ?? [])])
  const hints = [...(parts.hints ?? []), ...(parts.outline ?? []).map((h) => h.text)].filter((h) => h.trim() !== "")
  const links = uniqueSorted(parts.links ?? [])
  return {
    name: parts.name,
    ...(parts.type === undefined ? {} : { type: parts.type }),
    ...(parts.description === undefined || parts.description === "" ? {} : { description: parts.description }),
    ...(tags.length === 0 ? {} : { tags }),
    ...(hints.length === 0 ? {} : { hints }),
    ...(parts.content === undefined || parts.content === "" ? {} : { content: parts.content }),
    ...(parts.aliases === undefined || parts.aliases.length === 0 ? {} : { aliases: [...parts.aliases] }),
    ...(links.length === 0 ? {} : { links }),
    ...(parts.outline === undefined || parts.outline.length === 0 ? {} : { outline: parts.outline.map((h) => ({ depth: h.depth, text: h.text, slug: h.slug })) }),
    ...extra
  }
}

/** "retries-and-backoff" → "retries and backoff": a name from a file or directory name. */
export const nameFromFile = (path: string): string => {
  const base = path.split("/").pop() ?? path
  return base.replace(/\.[^.]+$/, "").replace(/[-_]+/g, " ").trim() || base
}
