import { Data, Either, Schema } from "effect"
import { parseSource } from "./Source.js"

/**
 * Registries are for discovery (spec 02 §3): `akm registry search` lists
 * installable bundles with the command that installs them. Their answers are
 * untrusted text from the network: decoded entry by entry, stripped of control
 * characters, and never mixed into local search.
 */

/** One bundle in a static registry index. */
export const RegistryEntry = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1)),
  description: Schema.String,
  /** An install source as `akm bundle add` takes it: `npm:@acme/kb@^1`, `https://…/kb.git`, `github:o/r#v1`, `website:https://…`. */
  source: Schema.String.pipe(Schema.minLength(1)),
  tags: Schema.optional(Schema.Array(Schema.String)),
  adapter: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
})
export type RegistryEntry = typeof RegistryEntry.Type

/** A static registry index: `{ "bundles": [ RegistryEntry, … ] }` served as JSON at the configured URL. */
export const RegistryIndex = Schema.Struct({ bundles: Schema.Array(Schema.Unknown) })

/** The part of the npm registry's `/-/v1/search` answer that is used. */
export const NpmSearchAnswer = Schema.Struct({
  objects: Schema.Array(Schema.Struct({
    package: Schema.Struct({
      name: Schema.String,
      description: Schema.optional(Schema.String),
      keywords: Schema.optional(Schema.Array(Schema.String))
    })
  }))
})

/** The keyword a package carries to be found by `akm registry search` on an npm registry. */
export const NPM_KEYWORD = "akm-bundle"

export interface RegistryHit {
  readonly registry: string
  readonly name: string
  readonly description: string
  readonly source: string
  readonly tags: ReadonlyArray<string>
  readonly adapter?: string
  /** The command that installs it. */
  readonly install: string
}

/** A registry that could not be asked or answered nonsense (exit 1). */
export class RegistryUnavailable extends Data.TaggedError("RegistryUnavailable")<{
  readonly registry: string
  readonly url: string
  readonly reason: string
  readonly hint: string
}> {
  override get message(): string {
    return `registry '${this.registry}' (${this.url}): ${this.reason}`
  }
}

// eslint-disable-next-line no-control-regex -- control characters are exactly what must not reach a terminal
const clean = (s: string): string => s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim()

const shellWord = (s: string): string => (/^[A-Za-z0-9@%+=:,./_-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)

/** `akm bundle add <source> [--adapter A]`, quoted for a POSIX shell. */
export const installCommand = (source: string, adapter?: string): string =>
  `akm bundle add ${shellWord(source)}${adapter === undefined ? "" : ` --adapter ${shellWord(adapter)}`}`

/**
 * A registry may only point at remote sources (git, npm, website): a local
 * path in someone else's index is refused, like anything `bundle add` refuses.
 */
const installable = (source: string): boolean => {
  const parsed = parseSource(source)
  return Either.isRight(parsed) && parsed.right.kind !== "filesystem"
}

const toHit = (registry: string, entry: RegistryEntry): RegistryHit | undefined => {
  const source = clean(entry.source)
  if (!installable(source)) return undefined
  const adapter = entry.adapter === undefined ? undefined : clean(entry.adapter)
  return {
    registry,
    name: clean(entry.name),
    description: clean(entry.description),
    source,
    tags: (entry.tags ?? []).map(clean).filter((t) => t !== ""),
    ...(adapter === undefined || adapter === "" ? {} : { adapter }),
    install: installCommand(source, adapter === "" ? undefined : adapter)
  }
}

const decodeEntry = Schema.decodeUnknownEither(RegistryEntry)

/** The usable entries of a static index; entries that do not decode or point nowhere installable are counted, not fatal. */
export const staticHits = (registry: string, bundles: ReadonlyArray<unknown>): { readonly hits: ReadonlyArray<RegistryHit>; readonly skipped: number } => {
  const hits: Array<RegistryHit> = []
  for (const raw of bundles) {
    const decoded = decodeEntry(raw)
    const hit = Either.isRight(decoded) ? toHit(registry, decoded.right) : undefined
    if (hit !== undefined) hits.push(hit)
  }
  return { hits, skipped: bundles.length - hits.length }
}

const npmName = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/i

/** npm search results as hits, in npm's order; the install source is `npm:<name>`. */
export const npmHits = (registry: string, answer: typeof NpmSearchAnswer.Type): { readonly hits: ReadonlyArray<RegistryHit>; readonly skipped: number } => {
  const hits = answer.objects.flatMap(({ package: pkg }) => {
    if (!npmName.test(pkg.name)) return []
    const hit = toHit(registry, {
      name: pkg.name,
      description: pkg.description ?? "",
      source: `npm:${pkg.name}`,
      tags: (pkg.keywords ?? []).filter((k) => k !== NPM_KEYWORD)
    })
    return hit === undefined ? [] : [hit]
  })
  return { hits, skipped: answer.objects.length - hits.length }
}

/**
 * Case-insensitive: every word of the query occurs in the name, the
 * description or a tag. Best first: name matches, then tag matches, then
 * description matches; ties by name. An empty query lists everything.
 */
export const matchHits = (query: string, hits: ReadonlyArray<RegistryHit>): ReadonlyArray<RegistryHit> => {
  const words = query.toLowerCase().split(/\s+/).filter((w) => w !== "")
  const score = (hit: RegistryHit): number | undefined => {
    const name = hit.name.toLowerCase()
    const description = hit.description.toLowerCase()
    const tags = hit.tags.map((t) => t.toLowerCase())
    let total = 0
    for (const word of words) {
      const points = name === word ? 8 : name.includes(word) ? 4 : tags.includes(word) ? 3 : tags.some((t) => t.includes(word)) ? 2 : description.includes(word) ? 1 : 0
      if (points === 0) return undefined
      total += points
    }
    return total
  }
  return hits
    .flatMap((hit) => {
      const s = score(hit)
      return s === undefined ? [] : [{ hit, s }]
    })
    .sort((a, b) => b.s - a.s || (a.hit.name < b.hit.name ? -1 : a.hit.name > b.hit.name ? 1 : 0))
    .map(({ hit }) => hit)
}
