import { sha256Hex } from "../../../domain/Digest.js"

/**
 * Where a crawled page is written inside the snapshot: derived from the URL
 * path so the concept ids read like the site (`/guide/start` →
 * `guide/start.md`, `/` → `index.md`, `/a/` → `a/index.md`). Only safe
 * characters reach the file system and nothing can escape the root: URL
 * dot-segments are already resolved by the URL parser, and every segment is
 * rebuilt from letters, digits, `.`, `_` and `-`.
 */

const PAGE_EXTENSIONS = /\.(html?|xhtml|md|markdown|txt|php|aspx?|jsp)$/i
const MAX_SEGMENT = 80
/**
 * A hostile site must not make the snapshot a pathologically deep or long
 * tree (10-quality-bars §3): at most this many directories above a page, and
 * this many UTF-8 bytes in its whole path. A page past either keeps its first
 * directories and gets a hashed name (well under the walk's index.maxDepth).
 */
export const MAX_PAGE_DIRS = 16
export const MAX_PAGE_PATH_BYTES = 512

const shortHash = (text: string, length = 8): string => sha256Hex(text).slice(0, length)

const decodeSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** One path segment made file-system safe; "" when nothing usable is left. */
const safeSegment = (raw: string): string => {
  const cleaned = decodeSegment(raw)
    .normalize("NFC")
    .replace(/[^\p{L}\p{N}._-]+/gu, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
  return [...cleaned].slice(0, MAX_SEGMENT).join("").replace(/[-.]+$/, "")
}

/** The snapshot-relative markdown path for a page URL (before collision handling). */
export const pagePath = (pageUrl: string): string => {
  const url = new URL(pageUrl)
  const raw = url.pathname.split("/")
  const isDirectory = url.pathname.endsWith("/")
  const segments = raw.map(safeSegment).filter((s) => s !== "")
  let name = isDirectory || segments.length === 0 ? "index" : segments.pop()!.replace(PAGE_EXTENSIONS, "")
  if (name === "") name = "index"
  // A directory segment named like a page file would clash with that file.
  const dirs = segments.map((s) => (s.toLowerCase().endsWith(".md") ? `${s}_` : s))
  if (url.search !== "") name = `${name}-q${shortHash(url.search)}`
  const full = [...dirs, `${name}.md`].join("/")
  if (dirs.length <= MAX_PAGE_DIRS && Buffer.byteLength(full) <= MAX_PAGE_PATH_BYTES) return full
  // Too deep or too long: the first directories that fit, and a name that stays unique by the full path's hash.
  const capped = `${name}-${shortHash(full)}.md`
  const kept = dirs.slice(0, MAX_PAGE_DIRS)
  while (kept.length > 0 && Buffer.byteLength([...kept, capped].join("/")) > MAX_PAGE_PATH_BYTES) kept.pop()
  return [...kept, capped].join("/")
}

/**
 * Hands out page paths without clashes: two URLs mapping to one path (`/a`
 * and `/a.html`, `/` and `/index`, `/A` and `/a` on a case-insensitive disk),
 * or a page file where another page needs a directory, get a hashed name.
 */
export class PagePaths {
  private readonly files = new Set<string>()
  private readonly dirs = new Set<string>()

  /** Reserves and returns a free path for `pageUrl`. */
  take(pageUrl: string): string {
    const base = pagePath(pageUrl)
    const hashed = base.replace(/\.md$/, `-${shortHash(pageUrl)}.md`)
    const candidates = [base, hashed, `${shortHash(pageUrl, 16)}.md`]
    const path = candidates.find((p) => this.free(p)) ?? `${shortHash(pageUrl, 32)}.md`
    this.reserve(path)
    return path
  }

  private free(path: string): boolean {
    const key = path.toLowerCase()
    if (this.files.has(key) || this.dirs.has(key)) return false
    const parts = key.split("/")
    for (let i = 1; i < parts.length; i++) if (this.files.has(parts.slice(0, i).join("/"))) return false
    return true
  }

  private reserve(path: string): void {
    const key = path.toLowerCase()
    this.files.add(key)
    const parts = key.split("/")
    for (let i = 1; i < parts.length; i++) this.dirs.add(parts.slice(0, i).join("/"))
  }
}
