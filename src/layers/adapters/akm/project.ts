import { Effect } from "effect"
import type { FileMeta, FileUnreadable, ItemPlan, Projection, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { checkWorkflow, workflowDiagnostics, workflowHints } from "../akm-workflow/workflowDocument.js"
import { projectTaskFile } from "../akm-task/project.js"
import { stringField, stringListField } from "../core/Frontmatter.js"
import { resolveLinkPath } from "../core/Links.js"
import { documentParts, frontmatterDiagnostics, readMarkdown } from "../core/MarkdownDocument.js"
import { makeProjection, metadataHints, uniqueTags } from "../core/Projection.js"
import type { RuleBook } from "../core/RuleBook.js"
import { projectEnvFile, projectSecret } from "../dotenv/envItems.js"
import { linkIdOf, projectReference, projectSkill, REFERENCE_KIND, SKILL_KIND } from "../skill-md/index.js"
import { isPlaceholderBody } from "./placeholder.js"
import { SKILL_PARENTS } from "./plan.js"
import { linkOfRef } from "./refs.js"
import { readScriptHeader } from "./scriptHeader.js"
import { BELIEF_STATES, QUALITIES, SCOPE_PREFIX } from "./types.js"

type Data = Readonly<Record<string, unknown>> | undefined

const isDate = (value: unknown): boolean => typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value))

/** akm's query-time signals from frontmatter (spec 04 §1): quality, belief state, supersession, scope, expiry. */
export const akmSignals = (data: Data): Partial<Projection> => {
  const quality = stringField(data, "quality")
  const beliefState = stringField(data, "beliefState")
  const supersededBy = stringField(data, "supersededBy")
  const expires = stringField(data, "expires")
  const scope = Object.fromEntries(
    Object.entries(data ?? {})
      .filter(([key, value]) => key.startsWith(SCOPE_PREFIX) && key.length > SCOPE_PREFIX.length && (typeof value === "string" || typeof value === "number" || typeof value === "boolean"))
      .map(([key, value]) => [key.slice(SCOPE_PREFIX.length), String(value)])
  )
  const xrefs = stringListField(data, "xrefs")
  const observedAt = stringField(data, "observed_at")
  const captureMode = stringField(data, "captureMode")
  const extra = {
    ...(xrefs.length === 0 ? {} : { xrefs }),
    ...(observedAt === undefined ? {} : { observedAt }),
    ...(captureMode === undefined ? {} : { captureMode })
  }
  return {
    ...(quality !== undefined && QUALITIES.includes(quality) ? { quality: quality as Projection["quality"] } : {}),
    ...(beliefState === undefined ? {} : { beliefState }),
    ...(supersededBy === undefined ? {} : { supersededBy }),
    ...(Object.keys(scope).length === 0 ? {} : { scope }),
    ...(expires === undefined ? {} : { staleAfter: expires }),
    ...(Object.keys(extra).length === 0 ? {} : { extra })
  }
}

/** `invalid-field-value` for signal fields with values akm cannot use. */
const fieldValueDiagnostics = (path: string, data: Data, keyLines: Readonly<Record<string, number>>, book: RuleBook): ReadonlyArray<Diagnostic> => {
  const out: Array<Diagnostic> = []
  const check = (key: string, ok: (value: string) => boolean, expected: string) => {
    const value = stringField(data, key)
    if (value !== undefined && !ok(value)) out.push(...book.report("invalid-field-value", path, `\`${key}\` is '${value}'; expected ${expected}`, { line: keyLines[key] }))
  }
  check("quality", (v) => QUALITIES.includes(v), QUALITIES.join(", "))
  check("beliefState", (v) => BELIEF_STATES.includes(v), BELIEF_STATES.join(", "))
  check("observed_at", isDate, "an ISO date")
  check("expires", isDate, "an ISO date")
  return out
}

/** The directories of one file list (WeakMap: freed with the scan's context). */
const directories = new WeakMap<ReadonlyArray<FileMeta>, ReadonlySet<string>>()
const directoriesOf = (files: ReadonlyArray<FileMeta>): ReadonlySet<string> => {
  const known = directories.get(files)
  if (known !== undefined) return known
  const dirs = new Set<string>()
  for (const { path } of files) {
    const parts = path.split("/")
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"))
  }
  directories.set(files, dirs)
  return dirs
}

/** The lines of `xrefs` and `supersededBy` when the item has either (so lintAkm reads no file), else undefined. */
const keyLinesOfRefs = (data: Data, keyLines: Readonly<Record<string, number>>): Readonly<Record<string, number>> | undefined => {
  if (stringListField(data, "xrefs").length === 0 && stringField(data, "supersededBy") === undefined) return undefined
  const lines: Record<string, number> = {}
  for (const key of ["xrefs", "supersededBy"]) if (keyLines[key] !== undefined) lines[key] = keyLines[key]
  return lines
}

/** Links made by `xrefs` and `supersededBy`. */
const refLinks = (data: Data, bundle: string): ReadonlyArray<string> =>
  [...stringListField(data, "xrefs"), ...(stringField(data, "supersededBy") === undefined ? [] : [stringField(data, "supersededBy")!])]
    .flatMap((ref) => linkOfRef(ref, bundle) ?? [])

const projectMarkdown = (path: string, type: string, text: string, ctx: ValidateContext, book: RuleBook): ProjectResult => {
  const doc = readMarkdown(text)
  const data = doc.frontmatter.data
  const diagnostics: Array<Diagnostic> = [...frontmatterDiagnostics(path, doc.frontmatter, book), ...fieldValueDiagnostics(path, data, doc.frontmatter.keyLines, book)]
  const description = stringField(data, "description")
  // A session is a transcript with no author to describe it; a malformed block's fields are unknown, not missing.
  if (description === undefined && type !== "session" && doc.frontmatter.error === undefined) diagnostics.push(...book.report("missing-description", path, `the ${type} has no \`description\``, { line: 1 }))
  if (isPlaceholderBody(doc.frontmatter.body)) diagnostics.push(...book.report("placeholder-stub", path, "the body holds only headings and TODO markers", { line: doc.frontmatter.bodyLine }))
  let hints: ReadonlyArray<string> = []
  if (type === "workflow") {
    const shape = checkWorkflow(doc.frontmatter, doc.scan)
    diagnostics.push(...workflowDiagnostics(path, shape, book, () => "invalid-workflow-structure"))
    hints = workflowHints(shape)
  }
  // Asked per target when the context can: reading ctx.files makes the item depend on the whole listing (R-IDX-2).
  const isDirectory = ctx.isDirectory ?? ((target: string) => directoriesOf(ctx.files).has(target))
  const links: Array<string> = []
  for (const link of doc.scan.links) {
    const target = resolveLinkPath(path, link.target)
    if (target === undefined) continue
    if (ctx.exists(target) || isDirectory(target)) links.push(linkIdOf(target))
    else diagnostics.push(...book.report("dangling-link", path, `${link.target} points at ${target}, which does not exist`, { line: link.line }))
  }
  const signals = akmSignals(data)
  const projection = makeProjection(
    {
      ...documentParts(doc, path),
      type,
      description,
      // A workflow's params are read as typed params (workflowHints), not as raw metadata.
      hints: [...new Set([...metadataHints(data, type === "workflow" ? ["searchHints"] : ["searchHints", "params"]), ...hints])],
      links: [...links, ...refLinks(data, ctx.bundle.name)]
    },
    signals
  )
  // Where broken-ref reports (lint.ts), kept only for an item with refs: the only items the rule reports on.
  const lintLines = keyLinesOfRefs(data, doc.frontmatter.keyLines)
  return lintLines === undefined ? { projection, diagnostics } : { projection, diagnostics, lintLines }
}

const projectScript = (path: string, ctx: ValidateContext, book: RuleBook): Effect.Effect<ProjectResult, FileUnreadable> =>
  ctx.readText(path).pipe(
    Effect.map((text) => {
      const header = readScriptHeader(text)
      const diagnostics = header.description === undefined ? book.report("missing-description", path, "the script has no `# @description …` comment at the top", { line: 1 }) : []
      return {
        projection: makeProjection({ type: "script", name: path.split("/").pop()!, description: header.description, tags: header.tags, hints: header.hints, content: header.text }),
        diagnostics
      }
    }),
    // A binary or oversized script is still an item: by name only.
    Effect.catchIf((error) => error.code !== "missing", () => Effect.succeed({ projection: makeProjection({ type: "script", name: path.split("/").pop()! }), diagnostics: [] }))
  )

/** A skill through the shared SKILL.md codec, with akm's frontmatter signals added. */
const projectAkmSkill = (item: ItemPlan, ctx: ValidateContext, book: RuleBook): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.gen(function* () {
    const result = yield* projectSkill(item, ctx, { book, parents: SKILL_PARENTS })
    const data = result.frontmatter
    const signals = akmSignals(data)
    const tags = stringListField(data, "tags")
    const extraTags = makeProjection({ name: "", tags, aliases: stringListField(data, "aliases") }).tags ?? []
    const projection: Projection = {
      ...result.projection,
      ...signals,
      ...(extraTags.length === 0 ? {} : { tags: uniqueTags([...(result.projection.tags ?? []), ...extraTags]) }),
      links: [...new Set([...(result.projection.links ?? []), ...refLinks(data, ctx.bundle.name)])].sort(),
      extra: { ...(result.projection.extra as object | undefined), ...(signals.extra as object | undefined) }
    }
    const lintLines = keyLinesOfRefs(data, result.frontmatterKeyLines)
    return lintLines === undefined ? { projection, diagnostics: result.diagnostics } : { projection, diagnostics: result.diagnostics, lintLines }
  })

export const projectAkm = (item: ItemPlan, ctx: ValidateContext, book: RuleBook): Effect.Effect<ProjectResult, FileUnreadable> => {
  const path = item.files[0]!
  switch (item.kind) {
    case SKILL_KIND:
      return projectAkmSkill(item, ctx, book)
    case REFERENCE_KIND:
      return projectReference(item, ctx, { book, parents: SKILL_PARENTS })
    case "secret":
      return Effect.succeed(projectSecret(path))
    case "env":
      return Effect.map(ctx.readText(path), (text) => projectEnvFile(path, text, book))
    case "task":
      // akm reports every task finding under its one task code (spec 03 "akm").
      return Effect.map(ctx.readText(path), (text) => projectTaskFile(path, text, book, (check) => (check === "dangerous-env-key" ? check : "invalid-task-yaml")))
    case "script":
      return projectScript(path, ctx, book)
    default:
      return Effect.map(ctx.readText(path), (text) => projectMarkdown(path, item.kind ?? "knowledge", text, ctx, book))
  }
}

