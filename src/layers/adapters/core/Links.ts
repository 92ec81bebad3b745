import { isExternalTarget } from "./Markdown.js"
import { basenameOf, dirnameOf } from "./Paths.js"

/** Where a markdown link written in a bundle file points. */
export type LinkTarget =
  /** A URL, `mailto:`, an in-page anchor, or nothing but a query or fragment. */
  | { readonly kind: "external" }
  /** Climbs above the bundle root through `..`. */
  | { readonly kind: "outside" }
  /** A bundle-relative path ("" = the root itself); `directory` when the target ends with `/`. */
  | { readonly kind: "path"; readonly path: string; readonly directory: boolean }

/** The path part of a link target: query and fragment dropped, trimmed, percent-escapes decoded, NFC like walked paths. */
export const linkPath = (target: string): string => {
  const bare = target.replace(/[?#].*$/s, "").trim()
  try {
    return decodeURIComponent(bare).normalize("NFC")
  } catch {
    // A malformed escape is kept as written.
    return bare.normalize("NFC")
  }
}

/**
 * Resolves a link target written in the file at `fromPath`: `/a/b.md` from the
 * bundle root, anything else from the file's folder; `.` and `..` folded.
 */
export const resolveLink = (fromPath: string, target: string): LinkTarget => {
  if (isExternalTarget(target)) return { kind: "external" }
  const bare = linkPath(target)
  if (bare === "") return { kind: "external" }
  const segments = bare.startsWith("/") || dirnameOf(fromPath) === "" ? [] : dirnameOf(fromPath).split("/")
  for (const segment of bare.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (segments.length === 0) return { kind: "outside" }
      segments.pop()
    } else {
      segments.push(segment)
    }
  }
  return { kind: "path", path: segments.join("/"), directory: bare.endsWith("/") }
}

/** The bundle path a link names, or undefined for external targets, the root and paths that leave the bundle. */
export const resolveLinkPath = (fromPath: string, target: string): string | undefined => {
  const resolved = resolveLink(fromPath, target)
  return resolved.kind === "path" && resolved.path !== "" ? resolved.path : undefined
}

/** The `.md` file a link names (not a directory, not a bare `.md`), or undefined. */
export const markdownFileOf = (target: LinkTarget): string | undefined => {
  if (target.kind !== "path" || target.directory) return undefined
  const name = basenameOf(target.path)
  return name.endsWith(".md") && name !== ".md" ? target.path : undefined
}
