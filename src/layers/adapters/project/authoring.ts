import { Effect, Either } from "effect"
import { AuthoringRefused, type CreateRequest, type ValidateContext } from "../../../domain/Adapter.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { headingSlug, validateConceptId } from "../../../domain/Ref.js"
import { renderWithFrontmatter } from "../core/FrontmatterEdit.js"
import { isOccupied } from "../core/Paths.js"
import type { AuthoringParts, RuleBook } from "../core/RuleBook.js"
import { createReference, createSkill } from "../skill-md/index.js"
import { LEDGER_DIR } from "./layout.js"
import { headingOf, LEDGER_REQUIRED_FIELDS } from "./ledgerRecord.js"
import { checkRuleFrontmatter } from "./ruleFrontmatter.js"

/** Where each writable type lives; routers and the brief are generated, never authored here. */
const DIRECTORY: Readonly<Record<string, string>> = {
  rule: "rules",
  memory: "memory",
  document: "docs",
  adr: "docs/adr",
  business: "docs/business",
  context: "context"
}

const RULE_KEYS = ["id", "introduced_by", "supersedes", "superseded_by", "caused", "scope", "mandates", "revisit_when"]
const LEDGER_FRONTMATTER = ["fingerprint", "occurrences", "sources"]

const PREAMBLE = `This bundle is a code repository's agent knowledge (spec 08): rules/*.md (optional frontmatter: ${RULE_KEYS.join(", ")}),
docs/**.md (docs/adr/ decisions, docs/business/ business rules with numbers), memory/*.md, context/*.md, skills/<name>/SKILL.md,
and ledger records .ai/ledger/<kind>/<id>.md (frontmatter kind, id, title; one "## Field" section per field).
Router files (AGENTS.md, CLAUDE.md …) and .ai/BRIEF.md are generated: never write them directly. Source code is not knowledge.`

const RULE_EXAMPLE = `---
id: "07"
introduced_by: failure/quota-lost-update-3f9a0c71e2b5
scope: ["src/billing/**"]
mandates:
  - { must: true, subject: "retry idempotent writes" }
---

# Retry idempotent quota writes

Quota updates are read-modify-write; retry them with the same idempotency key.
`

const ledgerKinds = Object.keys(LEDGER_REQUIRED_FIELDS)

const pathsFor = (type: string | undefined): ReadonlyArray<string> =>
  type === undefined ? [...Object.values(DIRECTORY).map((dir) => `${dir}/**/*.md`), "skills/*/SKILL.md", `${LEDGER_DIR}*/*.md`]
  : type === "skill" ? ["skills/*/SKILL.md", "skills/*/references/*.md"]
  : ledgerKinds.includes(type) ? [`${LEDGER_DIR}${type}/*.md`]
  : DIRECTORY[type] === undefined ? [] : [`${DIRECTORY[type]}/*.md`]

/** What authors are told for a target type (empty: every writable type). */
export const projectAuthoring = (target: string): AuthoringParts => {
  const type = target.trim() === "" ? undefined : target.trim()
  return {
    preamble: PREAMBLE,
    examples: [RULE_EXAMPLE],
    allowedPaths: pathsFor(type),
    constraints: ["never write router files or .ai/BRIEF.md by hand", "a ledger record carries every required field of its kind", "never write secrets into a record"]
  }
}

const refuse = (reason: string, hint: string) => Effect.fail(new AuthoringRefused(reason, hint))

const fieldText = (value: unknown): string =>
  Array.isArray(value) ? value.map((v) => `- ${fieldText(v)}`).join("\n") : typeof value === "string" ? value.trim() : JSON.stringify(value)

/** A ledger record: frontmatter (kind, id, title …) and one `## Field` section per field, required ones first. */
const renderLedger = (kind: string, id: string, request: CreateRequest): Either.Either<string, AuthoringRefused> => {
  const fields = request.fields ?? {}
  const required = LEDGER_REQUIRED_FIELDS[kind] ?? []
  const missing = required.filter((field) => fields[field] === undefined || fieldText(fields[field]) === "")
  if (missing.length > 0) return Either.left(new AuthoringRefused(`a ${kind} record needs ${missing.join(", ")}`, `pass every required field: ${required.join(", ")}`))
  const sectionKeys = [...required, ...Object.keys(fields).filter((key) => !required.includes(key) && !LEDGER_FRONTMATTER.includes(key)).sort()]
  const sections = sectionKeys.map((key) => `## ${headingOf(key)}\n\n${fieldText(fields[key])}\n`).join("\n")
  const frontmatter = { kind, id, title: request.title, ...Object.fromEntries(LEDGER_FRONTMATTER.filter((key) => fields[key] !== undefined).map((key) => [key, fields[key]])) }
  return Either.right(renderWithFrontmatter(frontmatter, `${request.body.trim() === "" ? "" : `${request.body.trim()}\n\n`}${sections}`))
}

export const createProjectItem = (request: CreateRequest, ctx: ValidateContext, book: RuleBook): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> =>
  Effect.gen(function* () {
    const type = request.type ?? "document"
    const raw = (request.conceptId ?? headingSlug(request.title)).replace(/\.md$/, "")
    if (type === "reference") {
      const [skills, skillName, ...inner] = raw.split("/")
      if (skills !== "skills" || skillName === undefined || inner.length === 0) return yield* refuse("a reference needs a concept id skills/<skill>/<path>", "e.g. skills/deploy/references/rollback")
      return yield* createReference(request, ctx, `skills/${skillName}`, inner.join("/"))
    }
    if (type === "skill") {
      const name = raw.replace(/^skills\//, "")
      if (name.includes("/") || name === "") return yield* refuse(`'${name}' is not a skill name`, "a skill is one directory under skills/")
      return yield* createSkill(request, ctx, `skills/${name}`, book)
    }
    let path: string
    let after: string
    if (ledgerKinds.includes(type)) {
      const id = raw.replace(new RegExp(`^(?:${LEDGER_DIR.replace(/\./g, "\\.")})?${type}/`), "")
      if (id.includes("/")) return yield* refuse(`'${id}' is not a ledger record id`, `a record lives at ${LEDGER_DIR}${type}/<id>.md`)
      path = `${LEDGER_DIR}${type}/${id}.md`
      after = yield* renderLedger(type, id, request)
    } else {
      const dir = DIRECTORY[type]
      if (dir === undefined) {
        return yield* refuse(`akm does not author '${type}' items in a project`, `use one of ${[...Object.keys(DIRECTORY), "skill", "reference", ...ledgerKinds].join(", ")}; routers and the brief are generated`)
      }
      const name = raw.startsWith(`${dir}/`) ? raw.slice(dir.length + 1) : raw
      path = `${dir}/${name}.md`
      const fields = request.fields ?? {}
      const frontmatter = type === "rule"
        ? Object.fromEntries([...RULE_KEYS, "tags"].filter((key) => fields[key] !== undefined).map((key) => [key, fields[key]]))
        : type === "memory"
          // The memory lifecycle's keys (spec 06 §8.1) travel with a memory.
          ? Object.fromEntries(["tags", "expires", "supersedes", "supersededBy", "observedAt", "derivedFrom"].filter((key) => fields[key] !== undefined).map((key) => [key, fields[key]]))
          : { tags: fields["tags"] }
      const problems = type === "rule" ? checkRuleFrontmatter(frontmatter, {}) : []
      if (problems.length > 0) return yield* refuse(`the rule frontmatter would be invalid: ${problems.map((p) => p.message).join("; ")}`, "see the invalid-rule-frontmatter guidance")
      const body = request.body.trimStart().startsWith("# ") ? request.body : `# ${request.title}\n\n${request.body}`
      const header = Object.fromEntries(Object.entries({ description: request.description, ...frontmatter }).filter(([, v]) => v !== undefined))
      // A file with nothing to say in frontmatter is plain markdown.
      after = Object.keys(header).length === 0 ? `${body.trim()}\n` : renderWithFrontmatter(header, body)
    }
    const conceptId = path.replace(/\.md$/, "")
    if (Either.isLeft(validateConceptId(conceptId))) return yield* refuse(`'${conceptId}' is not a valid concept id`, "use letters, digits, - and / in names")
    if (isOccupied(ctx, path)) return yield* refuse(`${conceptId} already exists`, "choose another name, or change the existing file through a proposal")
    return [{ bundle: ctx.bundle.name, path, beforeHash: null, after }]
  })
