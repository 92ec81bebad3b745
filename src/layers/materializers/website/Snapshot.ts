import * as fs from "node:fs"
import * as path from "node:path"
import { sha256Hex } from "../../../domain/Digest.js"
import { MANIFEST_PATH, readManifest, type SnapshotPage } from "../../adapters/website-snapshot/manifest.js"

/**
 * The snapshot directory a crawl writes: one markdown file per page plus
 * `manifest.json` (docs/formats/website-snapshot.md). The website-snapshot
 * adapter reads the same file with the same parser, so writer and reader
 * cannot drift apart.
 */

export interface SnapshotManifestFile {
  readonly url: string
  readonly fetchedAt: string
  readonly revision: string
  readonly complete: boolean
  readonly pages: ReadonlyArray<SnapshotPage>
}

/** A previous snapshot as a refresh uses it: its intact pages by requested URL, with their file. */
export interface PreviousSnapshot {
  readonly pages: ReadonlyMap<string, { readonly entry: SnapshotPage; readonly file: string }>
}

export { sha256Hex }

/** 2026-05-01T10:00:00.123Z → 20260501T100000.123Z */
const compactUtc = (epochMs: number): string => new Date(epochMs).toISOString().replace(/[-:]/g, "")

/**
 * A new revision on every crawl (R-WEB-7): when it ran (to the millisecond),
 * plus a digest of what it holds, e.g. `20260501T100000.123Z-1a2b3c4d`.
 */
export const snapshotRevision = (fetchedAtMs: number, pages: ReadonlyArray<SnapshotPage>): string => {
  const digest = sha256Hex(
    pages
      .map((p) => `${p.path}\0${p.contentHash ?? ""}\n`)
      .sort()
      .join("")
  )
  return `${compactUtc(fetchedAtMs)}-${digest.slice(0, 8)}`
}

export const writePage = (root: string, pagePath: string, text: string): void => {
  const file = path.join(root, ...pagePath.split("/"))
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}

export const writeManifest = (root: string, manifest: SnapshotManifestFile): void => {
  // Key order as documented, optional fields only when present.
  const pages = manifest.pages.map((p) => ({
    path: p.path,
    url: p.url,
    ...(p.finalUrl === undefined ? {} : { finalUrl: p.finalUrl }),
    ...(p.title === undefined ? {} : { title: p.title }),
    ...(p.contentHash === undefined ? {} : { contentHash: p.contentHash }),
    links: p.links ?? [],
    ...(p.etag === undefined ? {} : { etag: p.etag }),
    ...(p.lastModified === undefined ? {} : { lastModified: p.lastModified }),
    ...(p.fetchedAt === undefined ? {} : { fetchedAt: p.fetchedAt })
  }))
  fs.writeFileSync(path.join(root, MANIFEST_PATH), `${JSON.stringify({ ...manifest, pages }, null, 2)}\n`)
}

/**
 * The previous snapshot's reusable pages: only entries whose file is still
 * there and still hashes to its `contentHash` (a page edited in the cache is
 * fetched again rather than trusted). Undefined when there is no readable manifest.
 */
export const readPreviousSnapshot = (root: string): PreviousSnapshot | undefined => {
  let text: string
  try {
    text = fs.readFileSync(path.join(root, MANIFEST_PATH), "utf8")
  } catch {
    return undefined
  }
  const { manifest } = readManifest(text)
  if (manifest === undefined) return undefined
  const pages = new Map<string, { readonly entry: SnapshotPage; readonly file: string }>()
  for (const entry of manifest.pages) {
    if (entry.contentHash === undefined || pages.has(entry.url)) continue
    const file = path.join(root, ...entry.path.split("/"))
    if (readIntact(file, entry.contentHash) !== undefined) pages.set(entry.url, { entry, file })
  }
  return { pages }
}

/** A page file's text when it still hashes to `contentHash`; undefined when it is gone or changed. */
export const readIntact = (file: string, contentHash: string): string | undefined => {
  try {
    const text = fs.readFileSync(file, "utf8")
    return sha256Hex(text) === contentHash.replace(/^sha256[:-]/i, "").toLowerCase() ? text : undefined
  } catch {
    return undefined
  }
}
