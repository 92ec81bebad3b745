import { Effect, Option } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { stringField } from "../core/Frontmatter.js"
import { markdownFileOf, resolveLink } from "../core/Links.js"
import { frontmatterDiagnostics, readMarkdown } from "../core/MarkdownDocument.js"
import { makeProjection, nameFromFile } from "../core/Projection.js"
import { sha256, type RuleBook } from "../core/RuleBook.js"
import { MANIFEST_PATH, readManifest, type SnapshotManifest } from "./manifest.js"

const withoutFragment = (url: string): string => url.replace(/#.*$/s, "")

/** A body link → the concept id of the snapshot page it points at, by relative path or by a crawled URL. */
const linkedPage = (path: string, target: string, manifest: SnapshotManifest | undefined, urls: ReadonlyMap<string, string>): string | undefined => {
  const resolved = resolveLink(path, target)
  const page = markdownFileOf(resolved)
  if (page !== undefined) return page.slice(0, -3)
  if (resolved.kind === "external" && manifest !== undefined) {
    const crawled = urls.get(withoutFragment(target))
    if (crawled !== undefined) return crawled.slice(0, -3)
  }
  return undefined
}

/** One index per manifest object (WeakMap: freed with the manifest). */
const urlIndex = new WeakMap<SnapshotManifest, ReadonlyMap<string, string>>()

/** Page URL (requested and final) → page path. */
const urlsOf = (manifest: SnapshotManifest | undefined): ReadonlyMap<string, string> => {
  if (manifest === undefined) return new Map()
  const cached = urlIndex.get(manifest)
  if (cached !== undefined) return cached
  const urls = new Map<string, string>()
  for (const page of manifest.pages) {
    for (const url of [page.url, page.finalUrl]) if (url !== undefined && !urls.has(withoutFragment(url))) urls.set(withoutFragment(url), page.path)
  }
  urlIndex.set(manifest, urls)
  return urls
}

/**
 * One crawled page → its projection (spec 03 "website-snapshot"): name = the
 * manifest title, description = first paragraph, content = body, type
 * `website`, the source URL and fetch time in hints and `extra`.
 */
export const projectPage = (book: RuleBook) => (item: ItemPlan, ctx: ValidateContext): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.gen(function* () {
    const path = item.files[0]!
    const source = yield* ctx.readText(path)
    const manifestText = yield* Effect.option(ctx.readText(MANIFEST_PATH))
    const manifest = Option.isSome(manifestText) ? readManifest(manifestText.value).manifest : undefined
    const page = manifest?.byPath.get(path)
    const diagnostics: Array<Diagnostic> = []
    if (manifest !== undefined && page === undefined) {
      diagnostics.push(...book.report("unlisted-page", path, "the manifest does not list this page; indexed without a source URL"))
    }
    if (page?.contentHash !== undefined) {
      const expected = page.contentHash.replace(/^sha256[:-]/i, "").toLowerCase()
      if (expected !== sha256(source)) diagnostics.push(...book.report("content-hash-mismatch", path, "the page no longer matches the contentHash recorded when it was fetched"))
    }

    const { frontmatter, scan } = readMarkdown(source)
    diagnostics.push(...frontmatterDiagnostics(path, frontmatter, book))
    const urls = urlsOf(manifest)
    const links = scan.links.map((link) => linkedPage(path, link.target, manifest, urls)).filter((id): id is string => id !== undefined && id !== item.conceptId)
    const fetchedAt = page?.fetchedAt ?? manifest?.fetchedAt
    const provenance = page === undefined ? {} : {
      sourceUrl: page.url,
      ...(page.finalUrl === undefined ? {} : { finalUrl: page.finalUrl }),
      ...(fetchedAt === undefined ? {} : { fetchedAt }),
      ...(page.contentHash === undefined ? {} : { contentHash: page.contentHash }),
      ...(page.etag === undefined ? {} : { etag: page.etag }),
      ...(page.lastModified === undefined ? {} : { lastModified: page.lastModified }),
      ...(manifest?.revision === undefined ? {} : { revision: manifest.revision })
    }
    const projection = makeProjection(
      {
        type: "website",
        name: page?.title ?? stringField(frontmatter.data, "title") ?? scan.title ?? nameFromFile(path),
        description: stringField(frontmatter.data, "description") ?? scan.firstParagraph,
        hints: page === undefined ? [] : [page.url],
        outline: scan.headings,
        content: scan.text,
        links
      },
      {
        ...(page !== undefined && fetchedAt !== undefined ? { updated: fetchedAt } : {}),
        ...(page === undefined ? {} : { extra: provenance })
      }
    )
    return { projection, diagnostics }
  })
