import { Clock, Effect, Either } from "effect"
import { AuthoringRefused, type BundleInfo, type CreateRequest, type ValidateContext } from "../../../domain/Adapter.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { headingSlug, validateConceptId } from "../../../domain/Ref.js"
import { renderWithFrontmatter } from "../core/FrontmatterEdit.js"
import type { AuthoringParts, RuleBook } from "../core/RuleBook.js"
import { isReservedFile } from "./concepts.js"
import { DEFAULT_TYPE, projectConcept } from "./project.js"
import { isOkfDatetime } from "./provenance.js"

/** Used when the caller does not say which akm wrote the concept (tests pass `fields.akmVersion`). */
const DEFAULT_AKM_VERSION = "0.1.0"

/** Request fields that steer rendering and are never written into the frontmatter. */
const CONTROL_FIELDS = new Set(["now", "akmVersion"])

/** Keys create sets itself, in this order, around the caller's extra fields. */
const OWN_FIELDS = new Set(["type", "title", "description", "generated"])

const CONSTRAINTS = [
  "Write one markdown file per concept: YAML frontmatter between `---` lines, then a markdown body.",
  "Never add an `akm:` key or a generated identifier (UUID) to the frontmatter; the path is the concept's identity.",
  "When updating, keep every existing frontmatter key, its order and its formatting; change only the keys the edit needs."
]

// Rendered when asked for (a YAML round trip): every command that loads the adapters would pay for it at start-up (decision 0045).
const example = () => renderWithFrontmatter(
  {
    type: "Playbook",
    title: "Incident response: data freshness alert",
    description: "Steps to triage a freshness alert on the orders pipeline.",
    tags: ["oncall", "incident"],
    generated: { by: `akm/${DEFAULT_AKM_VERSION}`, at: "2026-04-12T09:00:00Z" }
  },
  "# Trigger\n\nA freshness alert fires when [orders](/tables/orders.md) lags more than 30 minutes behind its SLA.\n"
)

const allowedPathsFor = (target: string): ReadonlyArray<string> => {
  if (target === "" || target === ".") return ["**/*.md"]
  if (target.endsWith("/")) return [`${target}**/*.md`]
  return [target.endsWith(".md") ? target : `${target}.md`]
}

/** What authors are told besides the rule list (spec 03 §1); the table's error rows are hard constraints too. */
export const okfAuthoring = (book: RuleBook, bundle: BundleInfo, target: string, op: "create" | "update" | "consolidate"): AuthoringParts => ({
  preamble: [
    `Author Open Knowledge Format (OKF v0.2) concepts in bundle "${bundle.name}" (${op}${target === "" ? "" : ` ${target}`}).`,
    "A concept is a markdown file whose path without `.md` is its concept id; `index.md` and `log.md` are reserved listings, not concepts."
  ].join("\n"),
  examples: [example()],
  allowedPaths: allowedPathsFor(target),
  constraints: [...CONSTRAINTS, ...book.rules.filter((rule) => rule.severity === "error").map((rule) => rule.guidance)]
})

/** The caller's `fields.now` as an OKF datetime; without one, the Clock's now. */
const timestampOf = (now: unknown, clockNow: number): string | undefined => {
  if (now === undefined) return new Date(clockNow).toISOString()
  if (isOkfDatetime(now)) return now
  const date = now instanceof Date ? now : typeof now === "number" ? new Date(now) : undefined
  return date === undefined || Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

/**
 * Renders a new conformant concept: `type`, `title`, `description`, the
 * caller's extra fields, then `generated: { by: akm/<version>, at }`. Refuses
 * read-only bundles, existing paths, reserved names and anything the rule
 * table's error rows reject when the rendered file is validated.
 */
export const createConcept = (book: RuleBook) => (request: CreateRequest, ctx: ValidateContext): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> =>
  Effect.gen(function* () {
    if (!ctx.bundle.writable) return yield* Effect.fail(new AuthoringRefused(`bundle "${ctx.bundle.name}" is read-only`, "create the concept in a writable bundle"))
    const conceptId = (request.conceptId ?? headingSlug(request.title)).replace(/\.md$/, "")
    const path = `${conceptId}.md`
    const reserved = book.report("reserved-name", path, "")
    if (isReservedFile(path.toLowerCase()) && reserved.some((d) => d.severity === "error")) {
      return yield* Effect.fail(new AuthoringRefused(`"${conceptId}" is a reserved OKF name: index.md and log.md are listings, not concepts`, "choose another name for the concept"))
    }
    const valid = validateConceptId(conceptId)
    if (Either.isLeft(valid)) return yield* Effect.fail(new AuthoringRefused(`"${conceptId}" is not a valid concept id: ${valid.left.reason}`, "choose a path of plain segments"))
    if (ctx.exists(path)) return yield* Effect.fail(new AuthoringRefused(`${path} already exists`, "update the existing concept instead of creating it again"))

    const fields = request.fields ?? {}
    const extras = Object.entries(fields).filter(([key]) => !CONTROL_FIELDS.has(key) && !OWN_FIELDS.has(key))
    const forbidden = extras.filter(([key]) => key === "akm" || key.startsWith("akm:")).map(([key]) => key)
    if (forbidden.length > 0) return yield* Effect.fail(new AuthoringRefused(`akm does not write its own keys into OKF concepts (${forbidden.join(", ")})`, "leave akm bookkeeping out of the request fields"))
    const at = timestampOf(fields.now, yield* Clock.currentTimeMillis)
    if (at === undefined) return yield* Effect.fail(new AuthoringRefused(`fields.now is not a date: ${String(fields.now)}`, "pass an ISO 8601 datetime with an offset"))
    const version = typeof fields.akmVersion === "string" && fields.akmVersion !== "" ? fields.akmVersion : DEFAULT_AKM_VERSION

    const after = renderWithFrontmatter(
      {
        type: request.type ?? DEFAULT_TYPE,
        title: request.title,
        description: request.description,
        ...Object.fromEntries(extras),
        generated: { by: `akm/${version}`, at }
      },
      request.body
    )
    // The rendered file passes the same rules a scan applies to it (R-AD-3).
    const overlay: ValidateContext = {
      ...ctx,
      files: [...ctx.files, { path, size: Buffer.byteLength(after), mtimeMs: 0 }],
      exists: (p) => p === path || ctx.exists(p),
      readText: (p) => (p === path ? Effect.succeed(after) : ctx.readText(p))
    }
    const checked = yield* Effect.either(projectConcept(book)({ conceptId, files: [path] }, overlay))
    const errors = Either.isRight(checked) ? checked.right.diagnostics.filter((d) => d.severity === "error") : []
    if (errors.length > 0) return yield* Effect.fail(new AuthoringRefused(`the rendered concept breaks OKF rules: ${errors.map((d) => `${d.code}: ${d.message}`).join("; ")}`, "fix the request fields"))
    return [{ bundle: ctx.bundle.name, path, beforeHash: null, after }]
  })
