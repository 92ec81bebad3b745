/**
 * Refs name a concept: `bundle//concept/id#fragment` (spec 01 §5).
 * Pure parsing, validation, serialisation and resolution; no I/O.
 */
import { Data, Either, Schema } from "effect"

/** A ref as typed or read; without `bundle` it is a short ref (R-REF-3). */
export interface Ref {
  readonly bundle?: string
  readonly conceptId: string
  readonly fragment?: string
}

/** A fully qualified ref: the only form that is ever stored (R-REF-2). */
export interface QualifiedRef extends Ref {
  readonly bundle: string
}

export class RefInvalid extends Data.TaggedError("RefInvalid")<{
  readonly input: string
  readonly reason: string
  readonly hint: string
}> {
  override get message(): string {
    return `invalid ref '${this.input}': ${this.reason}`
  }
}

export class BundleNameInvalid extends Data.TaggedError("BundleNameInvalid")<{
  readonly name: string
  readonly reason: string
  readonly hint: string
}> {
  override get message(): string {
    return `invalid bundle name '${this.name}': ${this.reason}`
  }
}

export class RefNotFound extends Data.TaggedError("RefNotFound")<{
  readonly input: string
  readonly tried: ReadonlyArray<string>
  readonly hint: string
}> {
  override get message(): string {
    return `ref '${this.input}' not found (tried ${this.tried.join(", ") || "no bundle"})`
  }
}

const REF_HINT = "refs look like bundle//path/to/item or path/to/item"
const SOURCE_HINT = "this looks like a bundle source; use `akm bundle add <source>`"
const BUNDLE_HINT = "bundle names are 1-64 characters without whitespace, ':', '.', '#', '/' or '\\'"
const MAX_BUNDLE_NAME_LENGTH = 64

/** Anything but printable ASCII other than a backslash (NFC leaves ASCII as it is). */
const NEEDS_NORMALIZING = /[^ -[\]-~]/

/** Backslashes become `/` (Windows paths) and text becomes NFC, so refs compare byte-wise. */
export const normalize = (input: string): string => (NEEDS_NORMALIZING.test(input) ? input.replaceAll("\\", "/").normalize("NFC") : input)

// A leading `C:` is a Windows drive (absolute or drive-relative), never a concept id.
const DRIVE_LETTER = /^[A-Za-z]:/

const SOURCE_PREFIXES = ["./", "../", "~/", "/", "https://", "http://", "file://", "git@", "github:", "npm:", "website:"]

/** True for strings that look like what `akm bundle add` takes rather than a ref. */
export const looksLikeSource = (input: string): boolean => {
  const text = normalize(input)
  const lower = text.toLowerCase()
  return text === "." || text === ".." || text === "~" || DRIVE_LETTER.test(text) ||
    SOURCE_PREFIXES.some((prefix) => lower.startsWith(prefix))
}

const bundleNameProblem = (name: string): string | undefined => {
  if (name.length === 0) return "name is empty"
  if ([...name].length > MAX_BUNDLE_NAME_LENGTH) return `name is longer than ${MAX_BUNDLE_NAME_LENGTH} characters`
  if (/\s/u.test(name)) return "name contains whitespace"
  const bad = [":", ".", "#", "/", "\\", "\0"].find((char) => name.includes(char))
  if (bad !== undefined) return `name contains '${bad === "\0" ? "\\0" : bad}'`
  return undefined
}

export const validateBundleName = (name: string): Either.Either<string, BundleNameInvalid> => {
  const reason = bundleNameProblem(name)
  return reason === undefined
    ? Either.right(name)
    : Either.left(new BundleNameInvalid({ name, reason, hint: BUNDLE_HINT }))
}

// --- new bundle names (spec 01 §5) -------------------------------------------------------

/** What a new bundle may be called: what a ref, a path and a shell all take as it is. */
const NEW_BUNDLE_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/
const NEW_BUNDLE_HINT = "new bundle names are 1-63 lowercase letters, digits, '-' and '_', starting with a letter or digit"

/** True for a name that follows spec 01 §5; an older name outside it still loads (the rules above), with a warning. */
export const isNewBundleName = (name: string): boolean => NEW_BUNDLE_NAME.test(name)

/** The nearest name that follows spec 01 §5: lowercase ASCII, other runs as `-`, at most 63 characters; "bundle" when nothing is left. */
export const suggestBundleName = (name: string): string => {
  const folded = name.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase()
  const cleaned = folded.replace(/[^a-z0-9_-]+/g, "-").replace(/^[-_]+/, "").slice(0, 63).replace(/-+$/, "")
  return cleaned === "" ? "bundle" : cleaned
}

/** A name for a new bundle (add, create, rename): refused outside spec 01 §5, with a suggestion. */
export const validateNewBundleName = (name: string): Either.Either<string, BundleNameInvalid> => {
  if (isNewBundleName(name)) return Either.right(name)
  const reason = bundleNameProblem(name) ?? (name.length > 63 ? "name is longer than 63 characters" : "name has characters outside a-z, 0-9, '-' and '_', or does not start with a letter or digit")
  return Either.left(new BundleNameInvalid({ name, reason, hint: `try '${suggestBundleName(name)}' (${NEW_BUNDLE_HINT})` }))
}

/** A bundle name as it appears in config schemas (keys of `bundles`, `defaultBundle`). */
export const BundleName = Schema.String.pipe(
  Schema.filter((name) => bundleNameProblem(name) ?? true),
  Schema.annotations({ identifier: "BundleName", description: BUNDLE_HINT })
)

/**
 * Ids found valid, so planning a 20,000-item bundle several times per write
 * (validation before and after, the index refresh) checks each id once.
 * Bounded: cleared when it holds 65,536.
 */
const validIds = new Set<string>()

const conceptIdProblem = (id: string): string | undefined => {
  if (validIds.has(id)) return undefined
  const problem = conceptIdProblemOf(id)
  if (problem === undefined) {
    if (validIds.size >= 65_536) validIds.clear()
    validIds.add(id)
  }
  return problem
}

const conceptIdProblemOf = (id: string): string | undefined => {
  if (id.length === 0) return "concept id is empty"
  if (id.trim().length === 0) return "concept id is blank"
  if (id.includes("\0")) return "concept id contains a NUL character"
  if (id.includes("#")) return "concept id contains '#'"
  if (id !== normalize(id)) return "concept id is not normalised (backslash or non-NFC text)"
  if (id.startsWith("/")) return "absolute paths are not refs"
  const drive = DRIVE_LETTER.exec(id)
  if (drive !== null) return `'${drive[0]}' looks like a Windows drive letter`
  for (const segment of id.split("/")) {
    if (segment.length === 0) return "concept id has an empty segment (doubled or trailing '/')"
    if (segment === "." || segment === "..") return `segment '${segment}' is not allowed`
    if (segment.trim().length === 0) return "concept id has a blank segment"
  }
  return undefined
}

/**
 * Checks a concept id built outside `parse` (adapters derive ids from paths,
 * R-REF-4): it must survive `serialize` → `parse` unchanged.
 */
export const validateConceptId = (id: string): Either.Either<string, RefInvalid> => {
  const reason = conceptIdProblem(id)
  return reason === undefined
    ? Either.right(id)
    : Either.left(new RefInvalid({ input: id, reason, hint: REF_HINT }))
}

const invalid = (input: string, reason: string): Either.Either<never, RefInvalid> =>
  Either.left(new RefInvalid({ input, reason, hint: looksLikeSource(input) ? SOURCE_HINT : REF_HINT }))

/** R-REF-1: split at the first `#` (the fragment is all after it), then at the first `//`. */
export const parse = (input: string): Either.Either<Ref, RefInvalid> => {
  const text = normalize(input)
  if (text.length === 0) return invalid(input, "ref is empty")
  if (text.trim().length === 0) return invalid(input, "ref is blank")
  if (text.includes("\0")) return invalid(input, "ref contains a NUL character")
  if (text.startsWith("/")) return invalid(input, "absolute paths are not refs")
  // Checked before the bundle rule so `C://x` reads as a path, not as a bad bundle name.
  const drive = DRIVE_LETTER.exec(text)
  if (drive !== null) return invalid(input, `'${drive[0]}' looks like a Windows drive letter`)
  const hash = text.indexOf("#")
  const head = hash === -1 ? text : text.slice(0, hash)
  const fragment = hash === -1 ? undefined : text.slice(hash + 1)
  const split = head.indexOf("//")
  const bundle = split === -1 ? undefined : head.slice(0, split)
  const conceptId = split === -1 ? head : head.slice(split + 2)
  if (bundle !== undefined) {
    const problem = bundleNameProblem(bundle)
    if (problem !== undefined) return invalid(input, `bundle '${bundle}' is invalid: ${problem}`)
  }
  const problem = conceptIdProblem(conceptId)
  if (problem !== undefined) return invalid(input, problem)
  return Either.right({
    conceptId,
    ...(bundle === undefined ? {} : { bundle }),
    ...(fragment === undefined ? {} : { fragment })
  })
}

export const isQualified = (ref: Ref): ref is QualifiedRef => ref.bundle !== undefined

/** Like `parse`, but a short ref is an error: for places that only take stored refs. */
export const parseQualified = (input: string): Either.Either<QualifiedRef, RefInvalid> =>
  Either.flatMap(parse(input), (ref) =>
    isQualified(ref)
      ? Either.right(ref)
      : Either.left(new RefInvalid({
        input,
        reason: "ref has no bundle",
        hint: `write it fully qualified, e.g. <bundle>//${ref.conceptId}`
      })))

export const serialize = (ref: Ref): string =>
  (ref.bundle === undefined ? "" : `${ref.bundle}//`) + ref.conceptId +
  (ref.fragment === undefined ? "" : `#${ref.fragment}`)

/** The stored form (R-REF-2): always `bundle//conceptId`, never a fragment. */
export const toStored = (ref: QualifiedRef): string => `${ref.bundle}//${ref.conceptId}`

/** Byte-wise, case-sensitive (R-REF-1); refs from `parse` are already NFC. */
export const equals = (a: Ref, b: Ref): boolean =>
  a.bundle === b.bundle && a.conceptId === b.conceptId && a.fragment === b.fragment

export interface ResolveContext {
  /** Bundle names in config order. */
  readonly bundles: ReadonlyArray<string>
  readonly defaultBundle?: string
  readonly exists: (bundle: string, conceptId: string) => boolean
}

/**
 * R-REF-3: a qualified ref must exist as written; a short ref tries the
 * default bundle, then every bundle in config order, and the first hit wins.
 */
export const resolveShortRef = (ref: Ref, context: ResolveContext): Either.Either<QualifiedRef, RefNotFound> => {
  const candidates = ref.bundle !== undefined
    ? [ref.bundle]
    : [...new Set([...(context.defaultBundle === undefined ? [] : [context.defaultBundle]), ...context.bundles])]
  const found = candidates.find((bundle) => context.exists(bundle, ref.conceptId))
  if (found !== undefined) return Either.right({ ...ref, bundle: found })
  return Either.left(new RefNotFound({
    input: serialize(ref),
    tried: candidates.map((bundle) => toStored({ bundle, conceptId: ref.conceptId })),
    hint: ref.bundle === undefined && looksLikeSource(ref.conceptId)
      ? SOURCE_HINT
      : candidates.length === 0
      ? "no bundles are configured; add one with `akm bundle add <source>`"
      : "check the spelling, or find the ref with `akm search <words>`"
  }))
}

/** R-REF-3: inside bundle content, a short ref means the containing bundle. */
export const resolveInContent = (ref: Ref, containingBundle: string): QualifiedRef =>
  isQualified(ref) ? ref : { ...ref, bundle: containingBundle }

/**
 * A name slug for identifiers akm derives from text (concept ids, file and
 * folder names): lowercase, runs of anything but letters, digits and
 * combining marks become `-`. Marks are kept because many scripts
 * (Devanagari, Thai, …) spell words with them; NFC first so composed and
 * decomposed text agree. R-REF-7 accepts it as the older form of a heading
 * anchor; the anchor itself is githubSlug's.
 */
export const headingSlug = (text: string): string =>
  // ASCII text (most headings) is already NFC, and its letters and digits are exactly [a-z0-9] once lowercased:
  // the same slug without the Unicode-property scan, which cost ~10 µs a heading over an index build.
  // eslint-disable-next-line no-control-regex
  /^[\u0000-\u007f]*$/.test(text)
    ? text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")
    : text.normalize("NFC").toLowerCase().replace(/[^\p{L}\p{N}\p{M}]+/gu, "-").replace(/^-+|-+$/g, "")

/**
 * R-REF-7: GitHub's anchor of a heading's text — lowercase, every character
 * that is not a letter, mark, number, space, `-` or `_` removed, each space a
 * `-` (`2. Extract page_location` → `2-extract-page_location`). Repeats in one
 * document are told apart by githubSlugs.
 */
export const githubSlug = (text: string): string =>
  text.normalize("NFC").trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-")

/**
 * A document's heading anchors, one call per heading in order, as GitHub
 * gives them: the second heading with slug `s` is `s-1`, the third `s-2`,
 * skipping any slug already taken.
 */
export const githubSlugger = (): ((text: string) => string) => {
  const occurrences = new Map<string, number>()
  return (text) => {
    const base = githubSlug(text)
    let slug = base
    while (occurrences.has(slug)) {
      const n = occurrences.get(base)! + 1
      occurrences.set(base, n)
      slug = `${base}-${n}`
    }
    occurrences.set(slug, 0)
    return slug
  }
}

/** The anchors of a document's headings, in order (githubSlugger). */
export const githubSlugs = (texts: ReadonlyArray<string>): ReadonlyArray<string> => texts.map(githubSlugger())

export interface Heading {
  readonly text: string
  readonly depth: number
  readonly line: number
  /** The heading's anchor in its document (githubSlugs); computed from the text when absent. */
  readonly slug?: string
}

/**
 * R-REF-7: the first heading whose GitHub anchor is the fragment, else whose
 * older slug (headingSlug) is, else whose text matches it case-insensitively.
 */
export const findSection = <H extends Heading>(headings: ReadonlyArray<H>, fragment: string): H | undefined => {
  // An empty fragment (`ref#`) names no section, even when a heading slugs to "".
  if (fragment.length === 0) return undefined
  const folded = (text: string) => text.normalize("NFC").toLowerCase()
  const wanted = folded(fragment)
  const anchors = headings.some((h) => h.slug === undefined) ? githubSlugs(headings.map((h) => h.text)) : headings.map((h) => h.slug!)
  const at = anchors.findIndex((slug) => slug === fragment.normalize("NFC") || slug === wanted)
  if (at !== -1) return headings[at]
  return headings.find((heading) => headingSlug(heading.text) === fragment) ??
    headings.find((heading) => folded(heading.text) === wanted)
}
