/**
 * The snapshot manifest written by the website materializer (spec 02
 * "website"; documented in docs/formats/website-snapshot.md). Read leniently:
 * a bad page entry is reported and skipped, the rest stays usable.
 */

export const MANIFEST_PATH = "manifest.json"

export interface SnapshotPage {
  /** Bundle-relative path of the page's markdown file. */
  readonly path: string
  /** The URL the page was requested as (`url`, or spec 02's `canonicalUrl`). */
  readonly url: string
  readonly finalUrl?: string
  readonly title?: string
  readonly contentHash?: string
  readonly links?: ReadonlyArray<string>
  readonly etag?: string
  readonly lastModified?: string
  readonly fetchedAt?: string
}

export interface SnapshotManifest {
  readonly url: string
  readonly fetchedAt: string
  readonly revision?: string
  readonly complete?: boolean
  readonly pages: ReadonlyArray<SnapshotPage>
  readonly byPath: ReadonlyMap<string, SnapshotPage>
}

export interface ManifestRead {
  /** Undefined when the manifest as a whole is unusable. */
  readonly manifest: SnapshotManifest | undefined
  readonly problems: ReadonlyArray<{ readonly code: "invalid-manifest" | "invalid-manifest-entry"; readonly message: string }>
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value)

const nonEmpty = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

/** A page path must stay inside the snapshot: relative, POSIX, no `.`/`..` or empty segments. */
const pathProblem = (path: string): string | undefined => {
  if (path.startsWith("/") || /^[a-z]:/i.test(path)) return "is absolute"
  if (path.includes("\\")) return "uses backslashes"
  if (path.split("/").some((s) => s === "" || s === "." || s === "..")) return "has an empty, `.` or `..` segment"
  if (!path.endsWith(".md")) return "is not a markdown (.md) file"
  return undefined
}

const optionalStrings = (entry: Record<string, unknown>): Partial<SnapshotPage> => {
  const out: Record<string, unknown> = {}
  for (const key of ["finalUrl", "title", "contentHash", "etag", "lastModified", "fetchedAt"] as const) {
    const value = nonEmpty(entry[key])
    if (value !== undefined) out[key] = value
  }
  if (Array.isArray(entry.links)) out.links = entry.links.filter((l): l is string => typeof l === "string")
  return out
}

let memo: { readonly text: string; readonly read: ManifestRead } | undefined

/** Parses manifest text; every item of a scan reads the same text, so the last result is kept (bound: one manifest). */
export const readManifest = (text: string): ManifestRead => {
  if (memo?.text === text) return memo.read
  const read = parseManifest(text)
  memo = { text, read }
  return read
}

const parseManifest = (text: string): ManifestRead => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return { manifest: undefined, problems: [{ code: "invalid-manifest", message: `manifest.json is not valid JSON: ${(error as Error).message}` }] }
  }
  if (!isRecord(json)) return { manifest: undefined, problems: [{ code: "invalid-manifest", message: "manifest.json must be a JSON object" }] }
  const url = nonEmpty(json.url)
  const fetchedAt = nonEmpty(json.fetchedAt)
  const missing = [url === undefined ? "`url`" : undefined, fetchedAt === undefined ? "`fetchedAt`" : undefined].filter((m) => m !== undefined)
  if (url === undefined || fetchedAt === undefined) return { manifest: undefined, problems: [{ code: "invalid-manifest", message: `manifest.json has no ${missing.join(" or ")}` }] }
  const problems: Array<ManifestRead["problems"][number]> = []
  if (json.pages !== undefined && !Array.isArray(json.pages)) problems.push({ code: "invalid-manifest", message: "manifest.json `pages` must be a list" })
  const pages: Array<SnapshotPage> = []
  const byPath = new Map<string, SnapshotPage>()
  const entries: ReadonlyArray<unknown> = Array.isArray(json.pages) ? json.pages : []
  entries.forEach((entry, i) => {
    if (!isRecord(entry)) return problems.push({ code: "invalid-manifest-entry", message: `pages[${i}] is not an object` })
    const rawPath = nonEmpty(entry.path)
    const pageUrl = nonEmpty(entry.url) ?? nonEmpty(entry.canonicalUrl)
    if (rawPath === undefined || pageUrl === undefined) return problems.push({ code: "invalid-manifest-entry", message: `pages[${i}] needs a \`path\` and a \`url\`` })
    const path = rawPath.replace(/^\.\//, "").normalize("NFC")
    const problem = pathProblem(path)
    if (problem !== undefined) return problems.push({ code: "invalid-manifest-entry", message: `pages[${i}].path ${JSON.stringify(rawPath)} ${problem}` })
    if (byPath.has(path)) return problems.push({ code: "invalid-manifest-entry", message: `pages[${i}].path ${path} is listed twice` })
    const page: SnapshotPage = { path, url: pageUrl, ...optionalStrings(entry) }
    pages.push(page)
    byPath.set(path, page)
  })
  const revision = nonEmpty(json.revision) ?? (typeof json.revision === "number" ? String(json.revision) : undefined)
  return {
    manifest: { url, fetchedAt, ...(revision === undefined ? {} : { revision }), ...(typeof json.complete === "boolean" ? { complete: json.complete } : {}), pages, byPath },
    problems
  }
}
