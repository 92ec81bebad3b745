import { isExternalTarget } from "../core/Markdown.js"

/** Where a markdown link inside a bundle points (OKF §6.1). */
export type LinkTarget =
  | { readonly kind: "external" }
  /** Leaves the bundle root through `..`. */
  | { readonly kind: "outside" }
  /** A concept document: `path` is the `.md` file, `conceptId` the path without `.md`. */
  | { readonly kind: "concept"; readonly path: string; readonly conceptId: string }
  /** Any other path inside the bundle: a reserved `index.md`/`log.md`, a directory, a resource file. */
  | { readonly kind: "file"; readonly path: string }

const RESERVED = new Set(["index.md", "log.md"])

/** True for the reserved OKF file names, at any depth (OKF §3.1). */
export const isReservedFile = (path: string): boolean => RESERVED.has(path.slice(path.lastIndexOf("/") + 1))

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * Resolves a link target written in the file at `fromPath`: `/a/b.md` from the
 * bundle root, anything else from the file's folder. URLs, `mailto:` and
 * in-page anchors are external; fragments and queries are dropped. Markdown
 * files for which `isReserved` holds are plain files, not concepts.
 */
export const resolveLink = (fromPath: string, target: string, isReserved: (path: string) => boolean = isReservedFile): LinkTarget => {
  if (isExternalTarget(target)) return { kind: "external" }
  const bare = decode(target.replace(/[?#].*$/s, "")).normalize("NFC")
  if (bare === "") return { kind: "external" }
  const base = bare.startsWith("/") ? [] : fromPath.split("/").slice(0, -1)
  const segments = [...base]
  for (const segment of bare.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (segments.length === 0) return { kind: "outside" }
      segments.pop()
    } else {
      segments.push(segment)
    }
  }
  const path = segments.join("/")
  const name = path.slice(path.lastIndexOf("/") + 1)
  if (bare.endsWith("/") || !name.endsWith(".md") || name === ".md" || isReserved(path)) return { kind: "file", path }
  return { kind: "concept", path, conceptId: path.slice(0, -3) }
}
