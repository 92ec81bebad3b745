import { Effect } from "effect"
import picomatch from "picomatch"
import type { AuthoringRefused, BundleAdapter, BundleInfo, CreateRequest, FileMeta } from "../../domain/Adapter.js"
import type { Diagnostic } from "../../domain/Diagnostic.js"
import { Conflict, UsageError } from "../../domain/Errors.js"
import type { FileChange } from "../../domain/FileChange.js"
import type { IndexDocument } from "../../domain/IndexDocument.js"
import { sha256Hex, shortId, type EvidenceRef, type ProposalStatus } from "../../domain/Proposal.js"
import { headingSlug } from "../../domain/Ref.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { splitFrontmatter } from "../import.js"
import { evaluateChanges } from "../proposals/evaluate.js"
import { propose } from "../proposals/propose.js"
import { resolveBundle, scanWith } from "../scan.js"
import { shellCommand } from "../../domain/ShellQuote.js"

export interface BundleExportInput {
  /** The website-snapshot bundle to export from. */
  readonly source: string
  /** The writable bundle the pages become items of. */
  readonly to: string
  /** Globs over the page path (`guide/*.md`) or the URL path (`/guide/**`); default every page. */
  readonly pages?: ReadonlyArray<string> | undefined
  /** Render and validate, but store no proposal. */
  readonly dryRun?: boolean | undefined
}

/** Where one page went. */
export interface ExportedPage {
  /** The page's file in the snapshot. */
  readonly page: string
  readonly url: string
  /** The destination file, bundle-relative. */
  readonly path: string
  /** The destination item, when its adapter indexes the file as one. */
  readonly ref?: string
}

/** A selected page that was not exported, and why. */
export interface SkippedPage {
  readonly page: string
  readonly reason: string
}

export interface BundleExportResult {
  readonly source: string
  readonly bundle: string
  readonly adapter: string
  readonly dryRun: boolean
  /** The proposal holding every file; null on a dry run. */
  readonly id: string | null
  readonly status: ProposalStatus | null
  readonly title: string
  readonly pages: ReadonlyArray<ExportedPage>
  /** Destination paths, bundle-relative. */
  readonly files: ReadonlyArray<string>
  readonly skipped: ReadonlyArray<SkippedPage>
  readonly verdict: "pass" | "fail"
  /** Findings the files would introduce in the destination. */
  readonly diagnostics: ReadonlyArray<Diagnostic>
  readonly hint: string
}

const WEBSITE_ADAPTER = "website-snapshot"
const DESCRIPTION_CHARS = 200
const LISTED_PAGES = 5

/** Where a page came from: recorded in the destination's own metadata. */
interface Provenance {
  /** `<website bundle>//<page concept id>` */
  readonly ref: string
  /** The final URL after redirects, else the requested one. */
  readonly url: string
  readonly title: string
  readonly fetchedAt?: string | undefined
  readonly revision?: string | undefined
  readonly lastModified?: string | undefined
}

const stringOf = (record: unknown, key: string): string | undefined => {
  if (record === null || typeof record !== "object") return undefined
  const value = (record as Record<string, unknown>)[key]
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined
}

/** An HTTP date (or any parseable date) as ISO 8601 UTC, which OKF timestamps require. */
const isoDate = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  const time = Date.parse(value)
  return Number.isNaN(time) ? undefined : new Date(time).toISOString()
}

const defined = (record: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined))

/** OKF v0.2 §5.1 `sources` entry; llm-wiki reads the same list (an external `resource` is a cited source). */
const sourcesEntry = (p: Provenance) =>
  defined({ id: p.ref, resource: p.url, title: p.title, fetched_at: p.fetchedAt, snapshot_revision: p.revision, last_modified: isoDate(p.lastModified) })

/**
 * Provenance in each destination format's own metadata: OKF and llm-wiki cite
 * the page in `sources`; akm (and other formats) get a `source` mapping, and
 * akm's `observed_at` is the fetch time.
 */
const provenanceFields = (adapter: string, p: Provenance): Record<string, unknown> => {
  if (adapter === "okf" || adapter === "llm-wiki") return { sources: [sourcesEntry(p)] }
  const source = defined({ url: p.url, ref: p.ref, title: p.title, fetchedAt: p.fetchedAt, revision: p.revision })
  const observed = adapter === "akm" && p.fetchedAt !== undefined && /^\d{4}-\d{2}-\d{2}/.test(p.fetchedAt) ? { observed_at: p.fetchedAt } : {}
  return { ...observed, source }
}

/** Cuts text at a word boundary to at most `max` characters. */
const clip = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  if (flat.length <= max) return flat
  const cut = flat.slice(0, max + 1)
  const space = cut.lastIndexOf(" ")
  return `${(space > max / 2 ? cut.slice(0, space) : flat.slice(0, max)).trimEnd()}…`
}

/**
 * The destination name of a page: its path, each segment slugged. A
 * directory's `index` page takes the directory's name (the root's takes its
 * title), and `log` becomes `log-page`, since OKF and llm-wiki reserve both.
 */
export const exportConceptId = (pageId: string, title: string): string => {
  const segments = pageId.split("/").map(headingSlug).filter((s) => s !== "")
  const last = segments.at(-1)
  if (last === "index") segments.pop()
  else if (last === "log") segments[segments.length - 1] = "log-page"
  if (segments.length === 0) return headingSlug(title) || "home"
  return segments.join("/")
}

/** The path part of a URL (decoded), when it is one. */
const urlPath = (url: string | undefined): string | undefined => {
  if (url === undefined) return undefined
  try {
    const pathname = new URL(url).pathname
    try {
      return decodeURIComponent(pathname)
    } catch {
      return pathname
    }
  } catch {
    return undefined
  }
}

/** What a `--pages` glob is matched against: the page path, its concept id, its URLs and their paths. */
const matchNames = (doc: IndexDocument): ReadonlyArray<string> => {
  const names = [`${doc.conceptId}.md`, doc.conceptId]
  for (const url of [stringOf(doc.extra, "sourceUrl"), stringOf(doc.extra, "finalUrl")]) {
    const p = urlPath(url)
    if (url !== undefined) names.push(url)
    if (p !== undefined) names.push(p, p.replace(/^\/+/, ""), p.replace(/\/+$/, ""), p.replace(/^\/+|\/+$/g, ""))
  }
  return names.filter((n) => n !== "")
}

const listPages = (docs: ReadonlyArray<IndexDocument>): string => {
  const shown = docs.slice(0, LISTED_PAGES).map((d) => `${d.conceptId}.md`)
  return `${shown.join(", ")}${docs.length > LISTED_PAGES ? `, … (${docs.length} pages)` : ""}`
}

/** The source: a configured bundle whose adapter is website-snapshot. */
const websiteSource = Effect.fn("bundle.export.source")(function* (name: string) {
  const resolved = yield* resolveBundle(name)
  if (resolved.adapter.id !== WEBSITE_ADAPTER) {
    return yield* new UsageError({
      message: `bundle '${name}' is read by the ${resolved.adapter.id} adapter, not ${WEBSITE_ADAPTER}; only website snapshots are exported`,
      hint: `copy files between other bundles with \`akm import <file> --bundle <name>\`; export takes a website bundle (see \`akm bundle list\`)`
    })
  }
  return resolved
})

/** The destination: writable in config and read by an adapter that authors items. */
const writableDestination = Effect.fn("bundle.export.destination")(function* (name: string, source: string) {
  const resolved = yield* resolveBundle(name)
  const { info, adapter } = resolved
  if (name === source) return yield* new UsageError({ message: `bundle '${name}' is the website bundle itself`, hint: "export into another, writable bundle: --to <name>" })
  if (!info.writable) {
    return yield* new Conflict({ message: `bundle '${name}' is read-only`, hint: `export into a writable bundle, or make this one writable: ${shellCommand("akm config set", `bundles.${name}.writable`, "true")}` })
  }
  if (!adapter.writable || adapter.create === undefined) {
    return yield* new Conflict({ message: `the ${adapter.id} adapter of bundle '${name}' cannot author items`, hint: "export into an akm or okf bundle (akm bundle create <name>), or another bundle whose adapter can author files" })
  }
  return { info, adapter, create: adapter.create }
})

/** Refs of the destination items holding the new files, from the adapter's own plan of the tree after them. */
const refsOf = (info: BundleInfo, adapter: BundleAdapter, paths: ReadonlyArray<string>, files: ReadonlyArray<FileMeta>): ReadonlyMap<string, string> => {
  const refs = new Map<string, string>()
  try {
    const wanted = new Set(paths)
    for (const item of adapter.plan(files, info).items) {
      const primary = item.files.find((f) => wanted.has(f))
      if (primary !== undefined && !refs.has(primary)) refs.set(primary, `${info.name}//${item.conceptId}`)
    }
  } catch {
    // The refs are a convenience in the output; the evaluation reports a plan that fails.
  }
  return refs
}

/**
 * `akm bundle export <website> --to <bundle>` (spec 02 "website"): the
 * selected snapshot pages become native items of the destination through its
 * adapter's `create` — the same authoring path as `akm create`/`import` — with
 * the page's URL, fetch time, snapshot revision and website bundle recorded in
 * the destination's own metadata. Every file goes into ONE proposal, which
 * waits for review: the change class is `semantic` (third-party text entering
 * curated knowledge), which `policy.autoApply` never applies. A page whose
 * name is taken (or that the adapter refuses) is skipped with its reason;
 * nothing is ever overwritten. The copy is independent of the snapshot: a
 * refresh of the website bundle never touches it.
 */
export const bundleExport = Effect.fn("bundle.export")(function* (input: BundleExportInput) {
  const files = yield* BundleFiles
  const source = yield* websiteSource(input.source)
  const destination = yield* writableDestination(input.to, input.source)
  const { info, adapter } = destination

  const scanned = yield* scanWith(source.info, source.adapter)
  const all = scanned.documents
  if (all.length === 0) return yield* new UsageError({ message: `bundle '${input.source}' has no pages`, hint: `refresh it with \`${shellCommand("akm bundle update", input.source)}\`` })
  const globs = (input.pages ?? []).map((g) => g.trim()).filter((g) => g !== "")
  const isMatch = globs.length === 0 ? () => true : picomatch(globs, { dot: true })
  const selected = all.filter((doc) => matchNames(doc).some((name) => isMatch(name)))
  if (selected.length === 0) {
    return yield* new UsageError({
      message: `no page of '${input.source}' matches --pages ${globs.map((g) => `'${g}'`).join(" ")}`,
      hint: `pages are matched by path or URL path, e.g. 'guide/**' or '/guide/*'; its pages include ${listPages(all)}`
    })
  }

  const lockRevision = (yield* (yield* WorkspaceConfig).readLock).bundles[input.source]?.revision ?? undefined
  const walked = yield* files.walk(info.root, { includeHidden: adapter.includeHidden ?? false })
  const changes: Array<FileChange> = []
  const exported: Array<Omit<ExportedPage, "ref">> = []
  const skipped: Array<SkippedPage> = []
  const evidence: Array<EvidenceRef> = []
  for (const doc of selected) {
    const page = `${doc.conceptId}.md`
    const sourceUrl = stringOf(doc.extra, "sourceUrl")
    if (sourceUrl === undefined) {
      skipped.push({ page, reason: "the manifest does not list it, so there is no source URL to record" })
      continue
    }
    const text = yield* Effect.either(files.readText(source.info.root, page))
    if (text._tag === "Left") {
      skipped.push({ page, reason: text.left.message })
      continue
    }
    const provenance: Provenance = {
      ref: doc.ref,
      url: stringOf(doc.extra, "finalUrl") ?? sourceUrl,
      title: doc.name,
      fetchedAt: stringOf(doc.extra, "fetchedAt"),
      revision: stringOf(doc.extra, "revision") ?? lockRevision,
      lastModified: stringOf(doc.extra, "lastModified")
    }
    const description = doc.description === undefined ? `Exported from ${provenance.url}` : clip(doc.description, DESCRIPTION_CHARS)
    const request: CreateRequest = {
      conceptId: exportConceptId(doc.conceptId, doc.name),
      title: doc.name,
      description,
      body: splitFrontmatter(text.right).body,
      fields: provenanceFields(adapter.id, provenance)
    }
    // Each page sees the files made for the pages before it: two pages never claim one name.
    const ctx = files.context(info, walked.files, changes)
    const made = yield* Effect.either(destination.create(request, ctx))
    if (made._tag === "Left") {
      const refused: AuthoringRefused = made.left
      skipped.push({ page, reason: refused.reason })
      continue
    }
    changes.push(...made.right)
    exported.push({ page, url: provenance.url, path: made.right[0]!.path })
    evidence.push({ kind: "website-page", id: doc.ref, hash: sha256Hex(text.right), note: provenance.url })
  }
  if (changes.length === 0) {
    const first = skipped[0]!
    return yield* new Conflict({
      message: `nothing to export to '${input.to}': ${skipped.length === 1 ? `${first.page} was skipped (${first.reason})` : `all ${skipped.length} pages were skipped, e.g. ${first.page}: ${first.reason}`}`,
      hint: "pages whose names are taken are never overwritten; export into another bundle, or remove or rename the existing items"
    })
  }

  const after = files.context(info, walked.files, changes).files
  const refs = refsOf(info, adapter, changes.map((c) => c.path), after)
  const pages = exported.map((p) => ({ ...p, ...(refs.get(p.path) === undefined ? {} : { ref: refs.get(p.path)! }) }))
  const title = `Export ${exported.length} page${exported.length === 1 ? "" : "s"} from ${input.source} to ${input.to}`
  const base = { source: input.source, bundle: input.to, adapter: adapter.id, title, pages, files: changes.map((c) => c.path), skipped }

  if (input.dryRun === true) {
    const { evaluation } = yield* evaluateChanges(changes)
    return {
      ...base,
      dryRun: true,
      id: null,
      status: null,
      verdict: evaluation.verdict,
      diagnostics: evaluation.diagnostics,
      hint: `dry run: nothing was stored; run it again without --dry-run to make the proposal`
    } satisfies BundleExportResult as BundleExportResult
  }
  const { proposal } = yield* propose({ title, recipe: "export", changeClass: "semantic", changes, evidence })
  const id = shortId(proposal.id)
  const verdict = proposal.evaluation?.verdict ?? "pass"
  return {
    ...base,
    dryRun: false,
    id: proposal.id,
    status: proposal.status,
    verdict,
    diagnostics: proposal.evaluation?.diagnostics ?? [],
    hint: verdict === "fail"
      ? `the files do not validate in '${input.to}', so it cannot be accepted: see \`akm proposal show ${id}\`, then \`akm proposal reject ${id} --reason "…"\``
      : `review it with \`akm proposal show ${id}\`, then apply it with \`akm proposal accept ${id}\``
  } satisfies BundleExportResult as BundleExportResult
})
