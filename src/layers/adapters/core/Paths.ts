import type { ValidateContext } from "../../../domain/Adapter.js"

/**
 * Bundle-relative POSIX path helpers. Paths never leave the bundle: folding a
 * target that climbs above the root gives undefined, so callers treat it as
 * outside rather than as a missing file.
 */

export const dirnameOf = (path: string): string => {
  const slash = path.lastIndexOf("/")
  return slash === -1 ? "" : path.slice(0, slash)
}

export const basenameOf = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

/** Joins `target` onto `base` (a directory, "" = root) and folds `.`/`..`; undefined when it leaves the root or names the root itself. */
export const resolveInside = (base: string, target: string): string | undefined => {
  const parts: Array<string> = base === "" ? [] : base.split("/")
  for (const segment of target.split("/")) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      if (parts.length === 0) return undefined
      parts.pop()
    } else parts.push(segment)
  }
  return parts.length === 0 ? undefined : parts.join("/")
}

export const isMarkdownPath = (path: string): boolean => /\.md$/i.test(path)

export const withoutMarkdownExtension = (path: string): string => path.replace(/\.md$/i, "")

/** A file at `path`, or a directory: some file lies below it. */
export const isOccupied = (ctx: Pick<ValidateContext, "files" | "exists">, path: string): boolean =>
  ctx.exists(path) || ctx.files.some((f) => f.path.startsWith(`${path}/`))
