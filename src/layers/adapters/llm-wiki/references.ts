import { headingSlug } from "../../../domain/Ref.js"
import { resolveLinkPath } from "../core/Links.js"
import { resolveInside } from "../core/Paths.js"
import { PAGES_DIR, RAW_DIR } from "./layout.js"

/**
 * How a page names other files. Pages link pages by `xrefs:` entries,
 * `[[wikilinks]]` and markdown links, and cite raw files by `sources:`;
 * a name resolves relative to the page, then from the root, then inside
 * `pages/` (or `raw/` for sources), with or without `.md`, and finally by
 * file name anywhere under `pages/` (`[[Scaling Laws]]` → `pages/concepts/scaling-laws.md`).
 */
const withMd = (path: string): ReadonlyArray<string> => (path.endsWith(".md") ? [path] : [path, `${path}.md`])

const candidates = (fromPath: string, target: string, home: string): ReadonlyArray<string> => {
  const clean = target.replace(/[#?].*$/, "").trim()
  if (clean === "") return []
  const relative = resolveLinkPath(fromPath, clean)
  const fromRoot = resolveInside("", clean)
  const inHome = resolveInside("", `${home}${clean}`)
  return [relative, fromRoot, inHome].filter((p): p is string => p !== undefined).flatMap(withMd)
}

/**
 * The file a page link names, or undefined when none exists. `byName` finds a
 * page anywhere under pages/ by the slug of its file name, as wiki tools
 * resolve `[[Kaplan 2020]]` to `pages/papers/kaplan-2020.md`.
 */
export const resolvePageLink = (fromPath: string, target: string, exists: (path: string) => boolean, byName: (slug: string) => string | undefined): string | undefined => {
  const slug = headingSlug(target.replace(/[#|].*$/, "").replace(/\.md$/, "").split("/").pop() ?? "")
  return candidates(fromPath, target, PAGES_DIR).find(exists) ?? (slug === "" ? undefined : byName(slug))
}

/** Pages by the slug of their file name (the first in path order wins a tie). */
export const pagesByName = (paths: ReadonlyArray<string>): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  for (const path of paths) {
    if (!path.startsWith(PAGES_DIR) || !path.endsWith(".md")) continue
    const slug = headingSlug(path.split("/").pop()!.slice(0, -".md".length))
    if (!out.has(slug)) out.set(slug, path)
  }
  return out
}

/** The file a source entry names, or undefined when none exists. */
export const resolveSource = (fromPath: string, target: string, exists: (path: string) => boolean): string | undefined =>
  candidates(fromPath, target, RAW_DIR).find(exists)

/** The text naming a source: a string, or a mapping's `path`/`file`/`raw`/`source`/`url`/`resource`. */
export const sourceTarget = (entry: unknown): string | undefined => {
  if (typeof entry === "string") return entry.trim() === "" ? undefined : entry.trim()
  if (entry !== null && typeof entry === "object" && !Array.isArray(entry)) {
    for (const key of ["path", "file", "raw", "source", "url", "resource"]) {
      const value = (entry as Record<string, unknown>)[key]
      if (typeof value === "string" && value.trim() !== "") return value.trim()
    }
  }
  return undefined
}

/** `[[target]]` and `[[target|label]]` in plain text. */
export const wikilinks = (text: string): ReadonlyArray<string> =>
  [...text.matchAll(/\[\[([^\][\n]+)\]\]/g)].map((match) => match[1]!.split("|")[0]!.trim()).filter((target) => target !== "")

/** A file's concept id in the wiki: its path without `.md`. */
export const conceptIdOf = (path: string): string => path.replace(/\.md$/, "")
