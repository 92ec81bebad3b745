/**
 * Bundle-relative POSIX path helpers for the skill-based adapters. Paths never
 * leave the bundle: resolving a target that climbs above the root gives
 * undefined, so such a target is treated as external rather than dangling.
 */

export const dirnameOf = (path: string): string => {
  const slash = path.lastIndexOf("/")
  return slash === -1 ? "" : path.slice(0, slash)
}

export const basenameOf = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

/** Joins `target` onto `base` (a directory, "" = root) and folds `.`/`..`; undefined when it leaves the root. */
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

/** `a/b/SKILL.md` → `a/b` (the skill's concept id); other markdown loses `.md`; other files keep their path. */
export const linkIdOf = (path: string): string =>
  /(^|\/)skill\.md$/i.test(path) ? dirnameOf(path) : isMarkdownPath(path) ? withoutMarkdownExtension(path) : path
