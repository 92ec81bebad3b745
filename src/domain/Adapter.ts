import type { MemoryFacet } from "./memory/MemoryRecord.js"
import type { Effect } from "effect"
import type { Diagnostic, Severity } from "./Diagnostic.js"
import type { FileChange } from "./FileChange.js"
import type { IndexDocument } from "./IndexDocument.js"
import type { RuntimeExport } from "./RuntimeExport.js"

/**
 * The adapter contract (spec 03 §1). An adapter interprets one native format
 * for a whole bundle root. It is pure with respect to storage: it sees files
 * only through the contexts below (R-AD-1, R-ARCH-3), never the file system,
 * the index, the state store, git or the transaction engine.
 *
 * Scanning is split in two so indexing can be incremental and failures stay
 * per item (R-AD-8): `plan` decides from paths alone which items exist and
 * which files each derives from; `project` reads one item's files and returns
 * its search projection plus its diagnostics.
 */

/** A file found by the core walk; bundle-relative POSIX path, NFC. */
export interface FileMeta {
  readonly path: string
  readonly size: number
  readonly mtimeMs: number
  /** Set when the path reaches its file through a symbolic link: the bundle-relative path of the real file. */
  readonly linkedTo?: string
}

/** The bundle as an adapter sees it. */
export interface BundleInfo {
  readonly name: string
  readonly root: string
  readonly writable: boolean
}

export class FileUnreadable {
  readonly _tag = "FileUnreadable"
  constructor(readonly path: string, readonly code: "missing" | "too-large" | "invalid-encoding" | "binary" | "unreadable", readonly message: string) {}
}

/**
 * Read access to a bundle: the snapshot on disk plus, when validating a
 * proposal, the pending changes overlaid on it (R-AD-1).
 */
export interface ValidateContext {
  readonly bundle: BundleInfo
  /** Every file of the (overlaid) tree, sorted by path. */
  readonly files: ReadonlyArray<FileMeta>
  /** UTF-8 text of a file; fails for missing, oversized, binary or non-UTF-8 files. */
  readonly readText: (path: string) => Effect.Effect<string, FileUnreadable>
  readonly exists: (path: string) => boolean
  /**
   * The bundle-relative path of the real file a listed path reaches through a
   * symbolic link, or undefined. Asks about one path, so an item that checks
   * its own files does not depend on the whole file list (R-IDX-2).
   */
  readonly linkTarget?: (path: string) => string | undefined
  /** Whether some file of the tree lies below this path: a directory probe that, like linkTarget, needs no whole listing. */
  readonly isDirectory?: (path: string) => boolean
  /** Bundle-relative paths of the files below a directory, sorted: a skill's own files without the whole listing. */
  readonly filesUnder?: (dir: string) => ReadonlyArray<string>
}

/** What a probe may look at: read-only, bounded (R-AD-6). */
export interface ProbeContext {
  /** Names of the root's direct entries, directories with a trailing "/". */
  readonly entries: ReadonlyArray<string>
  readonly exists: (path: string) => Effect.Effect<boolean>
  readonly isDirectory: (path: string) => Effect.Effect<boolean>
  /** Text of a small file (≤ 1 MiB), undefined when missing or unreadable. */
  readonly readText: (path: string) => Effect.Effect<string | undefined>
  /** Bundle-relative paths of files matching a predicate, bounded breadth-first search. */
  readonly find: (predicate: (path: string) => boolean, limit?: number) => Effect.Effect<ReadonlyArray<string>>
}

/** One item an adapter will project: its concept id and source files (primary first). */
export interface ItemPlan {
  readonly conceptId: string
  readonly files: ReadonlyArray<string>
  /** Adapter-owned hint carried from plan to project (e.g. the type directory). */
  readonly kind?: string
}

export interface PlanResult {
  readonly items: ReadonlyArray<ItemPlan>
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

/**
 * The adapter's part of an IndexDocument; the core adds ref, bundle, adapter,
 * absolute paths, hash and bytes.
 */
export type Projection = Omit<IndexDocument, "ref" | "bundle" | "conceptId" | "adapter" | "path" | "files" | "hash" | "bytes" | "tokens">

/**
 * What whole-bundle rules see of a projected item: its identity and relations
 * (name, type, tags, links, supersededBy, extra…), not the fields derived from
 * its text (`content`, `hints`, `description`, `outline`). A scan streams
 * documents to the index in bounded batches and keeps only this of each item
 * until the end (spec 10 §2); a rule that needs an item's text projects it again.
 */
export type LintProjection = Omit<Projection, "content" | "hints" | "description" | "outline"> & {
  /** ProjectResult.lintLines, kept with the projection so a rule need not read the file again. */
  readonly keyLines?: Readonly<Record<string, number>>
}

/** One projected item as `lintBundle` sees it. */
export interface LintItem {
  readonly plan: ItemPlan
  readonly projection: LintProjection
}

export interface ProjectResult {
  readonly projection: Projection
  readonly diagnostics: ReadonlyArray<Diagnostic>
  /**
   * Frontmatter key lines a whole-bundle rule reports at (akm's `xrefs`,
   * `supersededBy`), kept in the item's lint projection: the rule then reads
   * no file on each write (issue 13 item 3). Absent = the rule reads the file.
   */
  readonly lintLines?: Readonly<Record<string, number>>
}

/**
 * One row of an adapter's rule table (R-AD-3): the same row tells a model what
 * to do (guidance) and tells the validator what to enforce (code, severity).
 */
export interface AdapterRule {
  readonly code: string
  readonly severity: Severity
  /** Severity under `lint --strict` when it differs (conformance findings). */
  readonly strictSeverity?: Severity
  /** Imperative guidance for authors, e.g. "Give every concept a non-empty `type`." */
  readonly guidance: string
}

export interface AuthoringContext {
  readonly adapter: string
  readonly ruleSetVersion: string
  /** sha256 over the rule table and guidance; identical inputs → identical hash (R-AD-2). */
  readonly ruleHash: string
  readonly guidance: ReadonlyArray<{ readonly path: string; readonly hash: string; readonly text: string }>
  readonly instructions: string
  readonly examples: ReadonlyArray<string>
  readonly allowedPaths: ReadonlyArray<string>
  readonly constraints: ReadonlyArray<string>
}

export interface CreateRequest {
  /** The item type/kind to create, e.g. "knowledge", "skill", "agent". */
  readonly type?: string
  readonly conceptId?: string
  readonly title: string
  readonly description?: string
  readonly body: string
  readonly fields?: Readonly<Record<string, unknown>>
}

/** Why an adapter will not author a request (reserved name, read-only adapter, unknown type…). */
export class AuthoringRefused {
  readonly _tag = "AuthoringRefused"
  constructor(readonly reason: string, readonly hint: string) {}
}

export interface BundleAdapter {
  readonly id: string
  /** Bumps when the projection or the rules change (stored in the lock and the index). */
  readonly version: string
  readonly writable: boolean
  readonly description: string
  readonly rules: ReadonlyArray<AdapterRule>
  /** Files whose change invalidates the whole bundle (a wiki's schema.md, .gitignore). */
  readonly couplingFiles?: ReadonlyArray<string>
  /** Walk options: hidden files and directories are skipped unless the adapter wants them (OKF does). */
  readonly includeHidden?: boolean
  /** Pure probe used when no adapter is configured. Reads, never writes. */
  readonly probe: (ctx: ProbeContext) => Effect.Effect<boolean>
  /** Paths → items (and structural diagnostics such as duplicate-concept-id). Deterministic. */
  readonly plan: (files: ReadonlyArray<FileMeta>, bundle: BundleInfo) => PlanResult
  /** One item's projection and native diagnostics, reading only through ctx. */
  readonly project: (item: ItemPlan, ctx: ValidateContext) => Effect.Effect<ProjectResult, FileUnreadable>
  /** Whole-bundle rules (links, collisions, reserved names, conventions) over the projected items, in plan order. */
  readonly lintBundle?: (ctx: ValidateContext, items: ReadonlyArray<LintItem>) => Effect.Effect<ReadonlyArray<Diagnostic>>
  /**
   * `lintBundle` for a change (decision 0038): its findings about the items
   * whose concept id is in `changed` and about the items that name one of
   * them. Every other finding of `lintBundle` must depend only on items not
   * in `changed`, so a change validation runs the rules only where the tree
   * before and after the change can differ. Absent: `lintBundle` over everything.
   */
  readonly lintChanged?: (ctx: ValidateContext, items: ReadonlyArray<LintItem>, changed: ReadonlySet<string>) => Effect.Effect<ReadonlyArray<Diagnostic>>
  /** `ctx` gives access to guidance files the format keeps in the bundle (a wiki's schema.md). */
  readonly authoringContext?: (bundle: BundleInfo, target: string, op: "create" | "update" | "consolidate", ctx?: ValidateContext) => Effect.Effect<AuthoringContext>
  readonly create?: (request: CreateRequest, ctx: ValidateContext) => Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused>
  /** The memory tier (spec 06 §8.1): formats with native memory files declare it; core owns the lifecycle. */
  readonly memory?: MemoryFacet
  /**
   * `akm import`: the type this format gives a note whose frontmatter `type` comes from
   * another format (an OKF `Runbook` → akm `knowledge`); absent = the type is kept verbatim.
   */
  readonly importType?: (type: string) => string
  /**
   * Runtime exports (spec 07 §1) among the files `ctx` lists: env files,
   * workflows, tasks, scripts … with the digest of each definition. Reading
   * through ctx only; an unreadable file is left out. Absent: the format
   * offers nothing to run or inject.
   */
  readonly exports?: (ctx: ValidateContext) => Effect.Effect<ReadonlyArray<RuntimeExport>>
  /**
   * Generated listing files (okf: every directory's `index.md`, OKF §8): each
   * listing as it should read now, given the tree `ctx` lists. Reads only; a
   * program turns differences into one proposal (`akm okf index --write`).
   * Never run by `akm index`. Absent: the format has no generated listings.
   */
  readonly listings?: (ctx: ValidateContext) => Effect.Effect<ReadonlyArray<Listing>>
}

/** A generated listing file: its bundle-relative path and the text it should have. */
export interface Listing {
  readonly path: string
  readonly text: string
}
