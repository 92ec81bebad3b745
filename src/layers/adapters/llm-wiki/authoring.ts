import { Effect, Either } from "effect"
import { AuthoringRefused, type CreateRequest, type ValidateContext } from "../../../domain/Adapter.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { headingSlug, validateConceptId } from "../../../domain/Ref.js"
import { renderWithFrontmatter } from "../core/FrontmatterEdit.js"
import { isExternalTarget } from "../core/Markdown.js"
import type { AuthoringParts } from "../core/RuleBook.js"
import { isReservedName, PAGES_DIR, SCHEMA_FILE } from "./layout.js"
import { resolveSource, sourceTarget } from "./references.js"

const PREAMBLE = `This bundle is an LLM-maintained wiki. \`${SCHEMA_FILE}\` (below, under guidance) states its conventions: follow it.
Write only pages, under \`${PAGES_DIR}\`; \`raw/\` holds immutable sources, and \`index.md\`/\`log.md\` are reserved.
A page's frontmatter has \`title\`, \`description\`, optional \`pageKind\` (its type; default note), \`tags\`, \`xrefs\` (other pages) and \`sources\` (raw files it digests).`

export const PAGE_EXAMPLE = `---
title: Scaling laws
description: How loss falls with compute, data and parameters, and where the fits break
pageKind: concept
xrefs: [pages/compute-optimal-training]
sources: [raw/kaplan-2020.md]
---

# Scaling laws

Loss falls as a power law in compute … (see [[Compute-optimal training]]).
`

/** What authors are told, with the wiki's own `schema.md` as guidance when the caller can read it. */
export const llmWikiAuthoring = (schema: string | undefined): AuthoringParts => ({
  preamble: PREAMBLE,
  guidance: schema === undefined ? [] : [{ path: SCHEMA_FILE, text: schema }],
  examples: [PAGE_EXAMPLE],
  allowedPaths: [`${PAGES_DIR}**/*.md`],
  constraints: ["write under pages/ only", "never modify raw/", "index.md and log.md are reserved", "cite sources that exist under raw/"]
})

const pageIdOf = (request: CreateRequest): Either.Either<string, AuthoringRefused> => {
  const given = (request.conceptId ?? headingSlug(request.title)).replace(/\.md$/, "")
  if (given.startsWith("raw/") || given === "raw" || given === "schema") {
    return Either.left(new AuthoringRefused(`${given} is outside pages/`, "the wiki is written under pages/ only; raw/ and schema.md are not written by akm"))
  }
  const id = given.startsWith(PAGES_DIR) ? given : `${PAGES_DIR}${given}`
  if (Either.isLeft(validateConceptId(id))) return Either.left(new AuthoringRefused(`'${id}' is not a valid concept id`, "use a name such as pages/scaling-laws"))
  if (isReservedName(`${id}.md`)) return Either.left(new AuthoringRefused(`${id} is reserved`, "index.md and log.md are reserved at every level; choose another name"))
  return Either.right(id)
}

/** Writes `pages/<id>.md`; refuses other places, reserved names, existing pages and sources that do not exist. */
export const createPage = (request: CreateRequest, ctx: ValidateContext): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> =>
  Effect.gen(function* () {
    const id = yield* pageIdOf(request)
    const path = `${id}.md`
    if (ctx.exists(path)) return yield* Effect.fail(new AuthoringRefused(`${id} already exists`, "choose another name, or change the page through a proposal"))
    const fields = request.fields ?? {}
    const sources = Array.isArray(fields["sources"]) ? fields["sources"] : fields["sources"] === undefined ? [] : [fields["sources"]]
    const missing = sources.map(sourceTarget).filter((s): s is string => s !== undefined && !isExternalTarget(s) && resolveSource(path, s, ctx.exists) === undefined)
    if (missing.length > 0) return yield* Effect.fail(new AuthoringRefused(`sources do not exist: ${missing.join(", ")}`, "cite files under raw/ that exist, or add the source first"))
    const pageKind = request.type === undefined || request.type === "note" ? undefined : request.type
    const body = request.body.trimStart().startsWith("# ") ? request.body : `# ${request.title}\n\n${request.body}`
    const after = renderWithFrontmatter(
      { title: request.title, description: request.description, pageKind, tags: fields["tags"], xrefs: fields["xrefs"], sources: sources.length === 0 ? undefined : sources },
      body
    )
    return [{ bundle: ctx.bundle.name, path, beforeHash: null, after }]
  })
