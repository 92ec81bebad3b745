import { markdownFileOf, type LinkTarget } from "../core/Links.js"

/**
 * Which paths are OKF concepts: every `.md` file except the reserved listings
 * `index.md` and `log.md`, at any depth (OKF §3.1); concept id = path without
 * `.md` (OKF §2).
 */

const RESERVED = new Set(["index.md", "log.md"])

/** True for the reserved OKF file names, at any depth. */
export const isReservedFile = (path: string): boolean => RESERVED.has(path.slice(path.lastIndexOf("/") + 1))

/** The concept a resolved link names, or undefined for reserved listings, directories and other files (OKF §6.1). */
export const linkedConcept = (target: LinkTarget): string | undefined => {
  const file = markdownFileOf(target)
  return file === undefined || isReservedFile(file) ? undefined : file.slice(0, -3)
}
