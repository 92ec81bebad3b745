import { Clock, Data, Effect, Either } from "effect"
import * as path from "node:path"
import type { FileUnreadable } from "../domain/Adapter.js"
import { isWritable } from "../domain/Config.js"
import { sha256Hex } from "../domain/Digest.js"
import { NotFound, UsageError } from "../domain/Errors.js"
import type { IndexDocument } from "../domain/IndexDocument.js"
import { parse, RefNotFound, resolveShortRef, toStored, type QualifiedRef } from "../domain/Ref.js"
import {
  cutPoints,
  dropTrailingHeadings,
  findFragment,
  holdsSecrets,
  isMarkdownPath,
  markdownHeadings,
  parseLineRange,
  secretListing,
  sliceLines,
  type ShowLevel
} from "../domain/Show.js"
import { BundleFiles } from "../services/BundleFiles.js"
import { IndexStore } from "../services/IndexStore.js"
import { Progress } from "../services/Progress.js"
import { Tokenizer } from "../services/Tokenizer.js"
import { UsageLog, type EventSource } from "../services/UsageLog.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { bundleNotFound } from "./bundle/show.js"
import { ensureIndexed } from "./ensureIndexed.js"
import { showNext } from "./showNext.js"

/** A file that is indexed but cannot be shown: binary, too large, not UTF-8, or outside its bundle root. */
export class ItemUnreadable extends Data.TaggedError("ItemUnreadable")<{
  readonly ref: string
  readonly path: string
  readonly message: string
  readonly hint: string
}> {}

export interface ShowInput {
  /** `bundle//concept/id#fragment`, or a short ref (R-REF-3). */
  readonly ref: string
  /** Default `full`. */
  readonly level?: ShowLevel | undefined
  readonly maxTokens?: number | undefined
  /** `A:B`, `A:` or `:B`: 1-based, inclusive lines of the file. */
  readonly lines?: string | undefined
  /** Record a usage event (R-SHOW-3); default true. */
  readonly track?: boolean | undefined
  readonly source?: EventSource | undefined
}

export interface OutlineHeading {
  readonly depth: number
  readonly text: string
  readonly slug: string
  readonly line: number
}

/** A file that belongs to an item (a skill's references and scripts). */
export interface Resource {
  /** Path inside the item's directory. */
  readonly path: string
  /** The ref to show it with: an item's own ref for indexed documents, else the item's ref plus the path. */
  readonly ref: string
  readonly type?: string | undefined
  readonly bytes: number
  readonly tokens?: number | undefined
}

export interface Truncation {
  /** Where the content was cut: before a heading, at a line end, or (one very long line) mid-line. */
  readonly at: "heading" | "line" | "character"
  readonly maxTokens: number
  /** Tokens of the untruncated content. */
  readonly totalTokens: number
  /** The file line the shown content ends on. */
  readonly toLine: number
  readonly hint: string
}

export interface ShowResult {
  /** Fully qualified (R-REF-2). */
  readonly ref: string
  readonly fragment?: string | undefined
  readonly level: ShowLevel
  readonly bundle: string
  readonly type: string | null
  readonly name: string
  readonly description: string | null
  readonly tags: ReadonlyArray<string>
  /** Tokens of the whole item as `full` prints it (exact unless `tokensEstimated`). */
  readonly tokens: number
  readonly tokensEstimated: boolean
  readonly path: string
  readonly editable: boolean
  /** The file changed since it was indexed: it is shown as it is now. */
  readonly stale: boolean
  /** Env and secret items: key names only, never values (R-SHOW-2). */
  readonly valuesHidden: boolean
  /** Set when the ref names a file of an item (a skill's script) rather than the item itself. */
  readonly partOf?: string | undefined
  readonly outline?: ReadonlyArray<OutlineHeading> | undefined
  readonly links?: ReadonlyArray<string> | undefined
  readonly resources?: ReadonlyArray<Resource> | undefined
  /** `full`: the native text (or the fragment's section, or the lines asked for). */
  readonly content?: string | undefined
  /** `full`: the file lines `content` covers (inclusive). */
  readonly lines?: { readonly from: number; readonly to: number } | undefined
  /** `full`: tokens of `content` (exact unless `contentTokensEstimated`). */
  readonly contentTokens?: number | undefined
  /** `full`: set when `contentTokens` is bytes/4 (no exact count cached; spec 04 §4). */
  readonly contentTokensEstimated?: true | undefined
  readonly truncated?: Truncation | undefined
  /** What to run next for more (or less) detail. */
  readonly next?: string | undefined
}

/**
 * Copies a ref's utility from state.db into index.db's ranking features, so
 * search needs no state.db join (spec 04 §6). Index runs copy them all again.
 */
export const copyUtility = Effect.fn("usage.copyUtility")(function* (ref: string) {
  const utility = yield* (yield* UsageLog).utility(ref)
  if (utility !== undefined) yield* (yield* IndexStore).updateUtility(ref, utility, new Date(yield* Clock.currentTimeMillis).toISOString())
  return utility
})

/** The cache key of a text that is not a whole file (a section, a card). */
export const textHash = (text: string): string => sha256Hex(text)

/** bytes / 4: the estimate search uses when no exact count is cached. */
const estimateTokens = (bytes: number): number => Math.ceil(bytes / 4)

// Its own module so that search, which prints it on every hit, does not load show.
export { showNext } from "./showNext.js"

/** A configured bundle's root and whether it is writable (config + akm.lock, as scan resolves it). */
const bundleContext = Effect.fn("show.bundle")(function* (bundle: string) {
  const workspace = yield* WorkspaceConfig
  const config = yield* workspace.read
  const configured = config.bundles[bundle]
  const root = (yield* workspace.readLock).bundles[bundle]?.root ?? (configured?.source.kind === "filesystem" ? configured.source.path : undefined)
  if (configured === undefined || root === undefined) {
    return yield* new NotFound({
      what: "bundle",
      name: bundle,
      message: `bundle '${bundle}' is in the index but not ${configured === undefined ? "configured" : "installed"}`,
      hint: "run `akm index` to bring the index up to date, or `akm bundle list` to see the bundles"
    })
  }
  return { root, editable: isWritable(configured) }
})

export interface ResolvedTarget {
  readonly ref: QualifiedRef
  /** The indexed item the ref names, or the item whose file it names. */
  readonly doc: IndexDocument
  /** Bundle-relative path of the file to read. */
  readonly file: string
  /** Set when the ref names one of the item's files rather than the item. */
  readonly resourceOf?: string | undefined
  readonly root: string
  readonly editable: boolean
}

/** The target of an indexed item itself (not one of its files). */
export const targetOf = Effect.fn("show.target")(function* (doc: IndexDocument, fragment?: string) {
  const { root, editable } = yield* bundleContext(doc.bundle)
  const ref: QualifiedRef = { bundle: doc.bundle, conceptId: doc.conceptId, ...(fragment === undefined ? {} : { fragment }) }
  const target: ResolvedTarget = { ref, doc, file: path.relative(root, doc.path).split(path.sep).join("/"), root, editable }
  return target
})

/**
 * ref text → the indexed item (R-REF-3 for short refs: the default bundle,
 * then config order) → its bundle root, after `ensureBuilt` (ensureIndexed:
 * an index that was never built is built first; the start-up fast paths open
 * only a built index and pass Effect.void). A ref below a directory item that names one of its files
 * (`skills//pdf/scripts/fill.py`) resolves to that file.
 */
export const resolveTargetWith = <E, R>(ensureBuilt: Effect.Effect<void, E, R>) => Effect.fn("show.resolve")(function* (input: string) {
  const parsed = parse(input)
  if (Either.isLeft(parsed)) return yield* parsed.left
  const ref = parsed.right
  const workspace = yield* WorkspaceConfig
  const index = yield* IndexStore
  const config = yield* workspace.read
  yield* ensureBuilt
  const bundles = Object.keys(config.bundles)
  if (ref.bundle !== undefined && !bundles.includes(ref.bundle)) return yield* bundleNotFound(ref.bundle, bundles)
  const candidates = ref.bundle !== undefined ? [ref.bundle] : [...new Set([...(config.defaultBundle === undefined ? [] : [config.defaultBundle]), ...bundles])]
  const existing = new Set<string>()
  for (const bundle of candidates) if (yield* index.has(bundle, ref.conceptId)) existing.add(bundle)
  const resolved = resolveShortRef(ref, { bundles, defaultBundle: config.defaultBundle, exists: (bundle) => existing.has(bundle) })
  if (Either.isRight(resolved)) {
    const doc = yield* index.resolve(toStored(resolved.right))
    if (doc !== undefined) {
      // A short ref several bundles have: say which one was taken and how to name the others.
      const others = [...existing].filter((bundle) => bundle !== resolved.right.bundle)
      if (ref.bundle === undefined && others.length > 0) {
        const names = others.map((bundle) => toStored({ bundle, conceptId: ref.conceptId }))
        yield* (yield* Progress).warn(`note: '${input}' is ${toStored(resolved.right)}; also in ${names.join(", ")}`)
      }
      return yield* targetOf(doc, resolved.right.fragment)
    }
  }
  // A file of a directory item: the nearest ancestor item that lists it.
  const segments = ref.conceptId.split("/")
  for (const bundle of candidates) {
    for (let cut = segments.length - 1; cut > 0; cut--) {
      const ancestor = segments.slice(0, cut).join("/")
      if (!(yield* index.has(bundle, ancestor))) continue
      const doc = yield* index.resolve(toStored({ bundle, conceptId: ancestor }))
      if (doc === undefined) continue
      const { root, editable } = yield* bundleContext(bundle)
      if (!doc.files.includes(path.join(root, ref.conceptId))) continue
      const target: ResolvedTarget = { ref: { ...ref, bundle }, doc, file: ref.conceptId, resourceOf: doc.ref, root, editable }
      return target
    }
  }
  if (Either.isLeft(resolved)) {
    // `show notes/setup.md`: refs leave out the extension the adapter strips.
    const bare = ref.conceptId.replace(/\.(md|markdown|mdx|txt|ya?ml|json)$/i, "")
    if (bare !== ref.conceptId) {
      for (const bundle of candidates) {
        if (!(yield* index.has(bundle, bare))) continue
        const suggestion = ref.bundle === undefined ? bare : toStored({ bundle, conceptId: bare })
        return yield* new RefNotFound({ input, tried: resolved.left.tried, hint: `did you mean \`${suggestion}\`? refs leave out the file extension` })
      }
    }
    return yield* resolved.left
  }
  return yield* new NotFound({ what: "ref", name: input, message: `ref '${input}' not found`, hint: "run `akm index` to bring the index up to date" })
})

/** resolveTarget as the full CLI runs it: like search (R-WS-2), a missing or deleted index.db is rebuilt first. */
export const resolveTarget = resolveTargetWith(ensureIndexed)

const unreadable = (target: ResolvedTarget, failure: FileUnreadable) =>
  failure.code === "missing"
    ? new NotFound({
      what: "file",
      name: path.join(target.root, target.file),
      message: `${toStored(target.ref)}: its file ${path.join(target.root, target.file)} no longer exists`,
      hint: "run `akm index` to bring the index up to date"
    })
    : new ItemUnreadable({
      ref: toStored(target.ref),
      path: path.join(target.root, target.file),
      message: `${toStored(target.ref)}: ${failure.message}`,
      hint: failure.code === "unreadable" ? "run `akm index`; if the file really lies outside its bundle, akm will not read it" : "akm shows text files only; open the file with another tool"
    })

/** Tokens of `text` cached in index.db under its content hash, else bytes/4 flagged as an estimate: never loads the tokenizer (spec 04 §4). */
export const knownTokens = Effect.fn("tokens.known")(function* (hash: string | undefined, text: string) {
  const cached = hash === undefined ? undefined : yield* (yield* IndexStore).cachedTokens(hash)
  return cached === undefined ? { tokens: estimateTokens(Buffer.byteLength(text, "utf8")), estimated: true } : { tokens: cached, estimated: false }
})

/** Exact tokens of `text`, cached in index.db under the content hash (spec 04 §1: computed lazily, never at index time). */
export const exactTokens = Effect.fn("tokens.exact")(function* (hash: string | undefined, text: string) {
  const index = yield* IndexStore
  const tokenizer = yield* Tokenizer
  if (hash !== undefined) {
    const cached = yield* index.cachedTokens(hash)
    if (cached !== undefined) return cached
  }
  const tokens = yield* tokenizer.count(text)
  if (hash !== undefined) yield* index.storeTokens(hash, tokens)
  return tokens
})

export interface ItemText {
  /** What `full` prints for the whole item: the file's text, or the key listing of a secret item. */
  readonly text: string | undefined
  readonly failure?: FileUnreadable | undefined
  readonly tokens: number
  readonly tokensEstimated: boolean
  readonly stale: boolean
  readonly valuesHidden: boolean
}

/**
 * Reads what an item shows, directly from its bundle (R-SHOW-1): contained in
 * the real root, compared with the indexed hash (stale), counted exactly.
 * Secret-holding items are never read: their listing comes from the index.
 */
export const readItem = Effect.fn("show.read")(function* (target: ResolvedTarget, exact: boolean) {
  // Exact counts load the tokenizer (0.5-1 s, 150 MB on a first count): only curate and --max-tokens need them.
  const count = (hash: string | undefined, text: string) =>
    exact ? Effect.map(exactTokens(hash, text), (tokens) => ({ tokens, estimated: false })) : knownTokens(hash, text)
  const files = yield* BundleFiles
  const relative = (file: string) => path.relative(target.root, file).split(path.sep).join("/")
  const own = target.resourceOf === undefined
  const current = yield* Effect.either(files.hash(target.root, own ? target.doc.files.map(relative) : [target.file]))
  const hash = Either.isRight(current) ? current.right.hash : undefined
  const stale = own && hash !== target.doc.hash
  if (holdsSecrets(target.doc)) {
    const text = secretListing(target.doc)
    const counted = yield* count(textHash(text), text)
    return { text, tokens: counted.tokens, tokensEstimated: counted.estimated, stale, valuesHidden: true } satisfies ItemText
  }
  const read = yield* Effect.either(files.readText(target.root, target.file))
  if (Either.isLeft(read)) {
    if (read.left.code === "missing" || read.left.code === "unreadable") return yield* unreadable(target, read.left)
    const bytes = Either.isRight(current) ? current.right.bytes : target.doc.bytes
    return { text: undefined, failure: read.left, tokens: estimateTokens(bytes), tokensEstimated: true, stale, valuesHidden: false } satisfies ItemText
  }
  const counted = yield* count(hash, read.right)
  return { text: read.right, tokens: counted.tokens, tokensEstimated: counted.estimated, stale, valuesHidden: false } satisfies ItemText
})

/** The longest prefix of `text` within `maxTokens`, cut before a heading if one fits, else at a line end, else mid-line. */
const truncate = Effect.fn("show.truncate")(function* (text: string, maxTokens: number, markdown: boolean) {
  const tokenizer = yield* Tokenizer
  // What is shown is the prefix without trailing whitespace, so that is what must fit.
  const fits = (end: number) => Effect.map(tokenizer.count(text.slice(0, end).trimEnd()), (n) => n <= maxTokens)
  /** The largest offset in `cuts` (ascending) whose prefix fits; token counts grow with the prefix, so bisect. */
  const largest = (cuts: ReadonlyArray<number>) =>
    Effect.gen(function* () {
      let lo = 0
      let hi = cuts.length - 1
      let best: number | undefined
      while (lo <= hi) {
        const mid = (lo + hi) >> 1
        if (yield* fits(cuts[mid]!)) {
          best = cuts[mid]!
          lo = mid + 1
        } else hi = mid - 1
      }
      return best
    })
  const cuts = cutPoints(text, markdown)
  const atHeading = yield* largest(cuts.headings)
  if (atHeading !== undefined) return { end: atHeading, at: "heading" as const }
  const atLine = yield* largest(cuts.lines)
  if (atLine !== undefined) return { end: atLine, at: "line" as const }
  const characters = Array.from({ length: Math.min(text.length, maxTokens * 16) }, (_, i) => i + 1).filter((i) => i === text.length || /\s/.test(text[i]!))
  return { end: (yield* largest(characters)) ?? 0, at: "character" as const }
})

const lineOf = (text: string, offset: number): number => {
  let line = 1
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++
  return line
}

/**
 * `akm show`: one item at the level asked for (spec 04 §4), after
 * `ensureBuilt` (see resolveTargetWith).
 */
export const showWith = <E, R>(ensureBuilt: Effect.Effect<void, E, R>) => {
  const resolveTarget = resolveTargetWith(ensureBuilt)
  return Effect.fn("show")(function* (input: ShowInput) {
    const level = input.level ?? "full"
    if (input.maxTokens !== undefined && (!Number.isInteger(input.maxTokens) || input.maxTokens < 1)) {
      return yield* new UsageError({ message: `--max-tokens must be a positive whole number (got ${input.maxTokens})`, hint: "e.g. --max-tokens 2000" })
    }
    const range = input.lines === undefined ? undefined : parseLineRange(input.lines)
    if (range !== undefined && Either.isLeft(range)) return yield* new UsageError({ message: range.left, hint: "e.g. --lines 10:40" })
    const target = yield* resolveTarget(input.ref)
    const fragment = target.ref.fragment
    if (range !== undefined && fragment !== undefined) {
      return yield* new UsageError({ message: "a #fragment and --lines both select part of the item; give one of them", hint: `e.g. ${showNext(toStored(target.ref), "--lines", "1:40")}` })
    }
    const index = yield* IndexStore
    const { doc } = target
    const ref = toStored(target.ref)
    const own = target.resourceOf === undefined
    // Only --max-tokens needs exact counts (spec 04 §4); otherwise cached counts or bytes/4.
    const exact = input.maxTokens !== undefined
    const item = yield* readItem(target, exact)
    const markdown = !item.valuesHidden && isMarkdownPath(target.file)

    const card = {
      ref,
      ...(fragment === undefined ? {} : { fragment }),
      level,
      bundle: doc.bundle,
      type: own ? doc.type ?? null : "resource",
      name: own ? doc.name : path.posix.basename(target.file),
      description: own ? doc.description ?? null : null,
      tags: own ? doc.tags ?? [] : [],
      tokens: item.tokens,
      tokensEstimated: item.tokensEstimated,
      path: path.join(target.root, target.file),
      editable: target.editable,
      stale: item.stale,
      valuesHidden: item.valuesHidden,
      ...(own ? {} : { partOf: target.resourceOf })
    }

    const outlineLevel = Effect.gen(function* () {
      const headings = item.text !== undefined && markdown ? markdownHeadings(item.text) : []
      const resources: Array<Resource> = []
      if (own && doc.files.length > 1) {
        const files = yield* BundleFiles
        const dir = path.posix.dirname(target.file)
        for (const file of doc.files.slice(1)) {
          const relative = path.relative(target.root, file).split(path.sep).join("/")
          const conceptId = relative.replace(/\.(md|markdown)$/i, "")
          const indexed = conceptId !== relative ? yield* index.resolve(toStored({ bundle: doc.bundle, conceptId })) : undefined
          const measured = yield* Effect.either(files.hash(target.root, [relative]))
          const bytes = Either.isRight(measured) ? measured.right.bytes : 0
          const text = Either.isRight(measured) ? yield* Effect.either(files.readText(target.root, relative)) : undefined
          // A resource's count is printed only when known (cached); otherwise its size in bytes.
          const tokens = text !== undefined && Either.isRight(text) && Either.isRight(measured) ? yield* index.cachedTokens(measured.right.hash) : undefined
          resources.push({
            path: dir === "." ? relative : relative.slice(dir.length + 1),
            ref: indexed?.ref ?? `${doc.bundle}//${relative}`,
            ...(indexed?.type === undefined ? {} : { type: indexed.type }),
            bytes,
            ...(tokens === undefined ? {} : { tokens })
          })
        }
      }
      return {
        outline: headings.map((h) => ({ depth: h.depth, text: h.text, slug: h.slug, line: h.line })),
        links: own ? doc.links ?? [] : [],
        resources
      }
    })

    const result: ShowResult = yield* Effect.gen(function* () {
      if (level === "card") return { ...card, next: showNext(ref, "--level", "outline") } satisfies ShowResult
      if (level === "outline") return { ...card, ...(yield* outlineLevel), next: showNext(ref) } satisfies ShowResult

      if (item.text === undefined) return yield* unreadable(target, item.failure!)
      let content = item.text
      let lines = { from: 1, to: lineOf(content, content.length - (content.endsWith("\n") ? 1 : 0)) }
      if (!item.valuesHidden && fragment !== undefined) {
        const section = findFragment(content, fragment)
        if (Either.isLeft(section)) {
          return yield* new NotFound({
            what: "section",
            name: fragment,
            message: `${ref} has no section '${fragment}'`,
            hint: section.left.length === 0 ? "this item has no headings; show it without a #fragment" : `available: ${section.left.join(", ")}`
          })
        }
        content = section.right.text
        lines = { from: section.right.fromLine, to: section.right.toLine }
      } else if (!item.valuesHidden && range !== undefined && Either.isRight(range)) {
        const excerpt = sliceLines(content, range.right)
        if (excerpt === undefined) return yield* new UsageError({ message: `${ref} has ${lines.to} lines; --lines ${input.lines} starts past the end`, hint: `e.g. --lines 1:${lines.to}` })
        content = excerpt.text
        lines = { from: excerpt.fromLine, to: excerpt.toLine }
      }
      // A section or line range is counted (or estimated) like a whole file, exact ones cached under its own hash.
      const counted = content === item.text
        ? { tokens: item.tokens, estimated: item.tokensEstimated }
        : exact
        ? { tokens: yield* exactTokens(textHash(content), content), estimated: false }
        : yield* knownTokens(textHash(content), content)
      const contentTokens = counted.tokens
      if (input.maxTokens === undefined || contentTokens <= input.maxTokens) {
        return { ...card, content, lines, contentTokens, ...(counted.estimated ? { contentTokensEstimated: true } : {}) } satisfies ShowResult
      }
      const tokenizer = yield* Tokenizer
      const cut = yield* truncate(content, input.maxTokens, markdown)
      // Never ends on a heading whose body was cut away.
      const shown = markdown ? dropTrailingHeadings(content.slice(0, cut.end)) : content.slice(0, cut.end).trimEnd()
      const toLine = shown === "" ? lines.from - 1 : lines.from + lineOf(content, shown.length - 1) - 1
      const truncated: Truncation = {
        at: cut.at,
        maxTokens: input.maxTokens,
        totalTokens: contentTokens,
        toLine,
        hint: `the rest starts at line ${toLine + 1}: ${showNext(ref, "--lines", `${toLine + 1}:${lines.to}`)}${markdown ? ", or show one section with <ref>#<slug> (see --level outline)" : ""}`
      }
      return {
        ...card,
        content: shown,
        lines: { from: lines.from, to: toLine },
        contentTokens: yield* tokenizer.count(shown),
        truncated,
        next: showNext(ref, "--lines", `${toLine + 1}:${lines.to}`)
      } satisfies ShowResult
    })
    if (input.track !== false) {
      const used = target.resourceOf ?? ref
      const source = input.source ?? "user"
      yield* (yield* UsageLog).recordShow(used, source)
      if (source === "user") yield* copyUtility(used)
    }
    return result
  })
}

/** `akm show` as the full CLI runs it (R-WS-2: a never-built index is built first). */
export const show = showWith(ensureIndexed)
