import { Effect, Either } from "effect"
import { AuthoringRefused, type CreateRequest, type ValidateContext } from "../../../domain/Adapter.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { headingSlug, validateConceptId } from "../../../domain/Ref.js"
import { renderTask, TASK_EXAMPLE } from "../akm-task/authoring.js"
import { renderWorkflow, WORKFLOW_EXAMPLE } from "../akm-workflow/authoring.js"
import { renderWithFrontmatter } from "../core/FrontmatterEdit.js"
import { isOccupied } from "../core/Paths.js"
import type { AuthoringParts, RuleBook } from "../core/RuleBook.js"
import { createReference, createSkill } from "../skill-md/index.js"
import { AKM_FIELDS, AKM_TYPES, directoryOf, SCOPE_PREFIX, typeNamed, type AkmType } from "./types.js"

const PATTERNS: Readonly<Record<AkmType, ReadonlyArray<string>>> = {
  skill: ["skills/*/SKILL.md", "skills/*/references/*.md"],
  command: ["commands/**/*.md"],
  agent: ["agents/**/*.md"],
  knowledge: ["knowledge/**/*.md"],
  instruction: ["instructions/**/*.md"],
  workflow: ["workflows/**/*.md"],
  script: ["scripts/**"],
  memory: ["memories/**/*.md"],
  lesson: ["lessons/**/*.md"],
  fact: ["facts/**/*.md"],
  env: ["env/**/*.env"],
  secret: [],
  task: ["tasks/**/*.yml"],
  session: ["sessions/**/*.md"]
}

const MEMORY_EXAMPLE = `---
description: The staging database refuses connections from CI unless the runner's IP is allow-listed
tags: [staging, ci, database]
beliefState: active
observed_at: 2026-03-02
xrefs: [knowledge/staging-environment]
---

# Staging DB needs an allow-listed runner IP

CI jobs that hit staging fail with ECONNREFUSED until the runner's egress IP is added in the cloud console.
`

const SCRIPT_EXAMPLE = `#!/usr/bin/env bash
# @description Bump the package version and tag the release commit
# @tags release, versioning
# @usage bump-version.sh <major|minor|patch>
set -euo pipefail
`

const EXAMPLES: Partial<Record<AkmType, string>> = { memory: MEMORY_EXAMPLE, script: SCRIPT_EXAMPLE, workflow: WORKFLOW_EXAMPLE, task: TASK_EXAMPLE }

const PREAMBLE = `This is an akm working bundle: one directory per item type — skills/<name>/SKILL.md, commands/, agents/, knowledge/, instructions/,
workflows/, scripts/, memories/, lessons/, facts/, env/*.env, secrets/, tasks/*.yml, sessions/. The ref of an item is <dir>/<name>
(skills: skills/<name>; scripts keep their extension). Markdown frontmatter fields: ${AKM_FIELDS.join(", ")}, and scope_<key>.`

/** What authors are told for a target: the whole layout, or the one type the target's directory names. */
export const akmAuthoring = (target: string): AuthoringParts => {
  const type = typeNamed(target.split("/")[0] ?? "")
  return {
    preamble: type === undefined ? PREAMBLE : `${PREAMBLE}\nYou are writing a ${type}: ${PATTERNS[type].join(", ") || "(not through proposals)"}.`,
    examples: type === undefined ? [MEMORY_EXAMPLE] : [EXAMPLES[type] ?? MEMORY_EXAMPLE],
    allowedPaths: type === undefined ? AKM_TYPES.flatMap((t) => PATTERNS[t]) : PATTERNS[type],
    constraints: [
      "never write env values or secrets: env files list key names, secrets are set with `akm secret set`",
      "keep unknown frontmatter keys and their order when updating",
      "no TODO-only stubs"
    ]
  }
}

const refuse = (reason: string, hint: string) => Effect.fail(new AuthoringRefused(reason, hint))

/** Frontmatter for a new markdown item: akm's fields in their usual order, then scope_* and any other given keys. */
const markdownFields = (request: CreateRequest): Record<string, unknown> => {
  const fields = request.fields ?? {}
  const known = Object.fromEntries(AKM_FIELDS.filter((key) => key !== "description").map((key) => [key, fields[key]]))
  const rest = Object.fromEntries(Object.entries(fields).filter(([key]) => !AKM_FIELDS.includes(key) && key !== "title" && key !== "name").sort(([a], [b]) => (a.startsWith(SCOPE_PREFIX) === b.startsWith(SCOPE_PREFIX) ? 0 : a.startsWith(SCOPE_PREFIX) ? -1 : 1)))
  // The title stays the item's name even when the body opens with another heading (an imported note).
  const title = leadingHeading(request.body) === undefined || leadingHeading(request.body) === request.title.trim() ? {} : { title: request.title }
  return { ...title, description: request.description, ...known, ...rest }
}

const leadingHeading = (body: string): string | undefined => /^# +(.+?)[ \t]*#*[ \t]*$/m.exec(body.trimStart().split("\n")[0] ?? "")?.[1]

const titled = (request: CreateRequest): string => (leadingHeading(request.body) !== undefined ? request.body : `# ${request.title}\n\n${request.body}`)

const COMMENT_PREFIX: ReadonlyArray<readonly [RegExp, string]> = [
  [/\.(?:[cm]?js|[cm]?ts|jsx|tsx|go|rs|java|kt|swift|scala|cs|c|cc|cpp|h|hpp|dart|php)$/i, "//"],
  [/\.(?:sql|lua|hs)$/i, "--"],
  [/\.(?:bat|cmd)$/i, "REM"]
]

const renderScript = (request: CreateRequest, path: string): string => {
  const prefix = COMMENT_PREFIX.find(([pattern]) => pattern.test(path))?.[1] ?? "#"
  const tags = request.fields?.["tags"]
  const tagText = Array.isArray(tags) ? tags.map(String).join(", ") : typeof tags === "string" ? tags : undefined
  const header = [`${prefix} @description ${request.description ?? request.title}`, ...(tagText === undefined ? [] : [`${prefix} @tags ${tagText}`])]
  const lines = request.body.replace(/^\n+/, "").split("\n")
  const shebang = lines[0]?.startsWith("#!") === true ? [lines.shift()!] : []
  const body = lines.join("\n").replace(/\s+$/, "")
  return `${[...shebang, ...header].join("\n")}\n${body === "" ? "" : `${body}\n`}`
}

const ENV_NAME_LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=?\s*$/

/** An env file of key names (empty values): values are set with `akm env set`, never through a proposal. */
const renderEnv = (request: CreateRequest): Either.Either<string, AuthoringRefused> => {
  const given = request.fields?.["keys"]
  const lines: Array<string> = Array.isArray(given) ? given.map((key) => `${String(key)}=`) : []
  for (const line of request.body.split("\n")) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) {
      lines.push(line)
      continue
    }
    const match = ENV_NAME_LINE.exec(line)
    if (match === null) return Either.left(new AuthoringRefused("env files are created with key names only", "list the keys (KEY or KEY=) and set values with `akm env set`"))
    lines.push(`${match[1]}=`)
  }
  if (!lines.some((line) => /^[A-Za-z_][A-Za-z0-9_]*=$/.test(line.trim()))) return Either.left(new AuthoringRefused("the env file would have no keys", "pass fields.keys or KEY lines in the body"))
  if (lines.some((line) => /=$/.test(line) && !/^[A-Za-z_][A-Za-z0-9_]*=$/.test(line.trim()))) return Either.left(new AuthoringRefused("a key name is not valid", "key names are letters, digits and _ and do not start with a digit"))
  const header = request.description === undefined ? "" : `# akm:public ${request.description}\n\n`
  return Either.right(`${header}${lines.join("\n").replace(/\n+$/, "")}\n`)
}

/**
 * `create` for every type (spec 03 "akm"): `remember` is a memory, `import`
 * knowledge. Workflows, tasks and skills are rendered and checked by their
 * own modules; secrets are refused (values come only from `akm secret set`).
 */
export const createAkm = (request: CreateRequest, ctx: ValidateContext, book: RuleBook): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> =>
  Effect.gen(function* () {
    if (request.type === "reference") {
      const [skills, skillName, ...inner] = (request.conceptId ?? "").split("/")
      if (skills !== "skills" || skillName === undefined || inner.length === 0) return yield* refuse("a reference needs a concept id skills/<skill>/<path>", "e.g. skills/pdf/references/forms")
      return yield* createReference(request, ctx, `skills/${skillName}`, inner.join("/").replace(/\.md$/, ""))
    }
    const type = request.type === undefined ? "knowledge" : typeNamed(request.type)
    if (type === undefined) return yield* refuse(`'${request.type}' is not an akm type`, `use one of ${AKM_TYPES.join(", ")} (or remember, import)`)
    if (type === "secret") return yield* refuse("secrets are never written through a proposal", "use `akm secret set <ref>`, which reads the value from stdin")
    const dir = directoryOf(type)
    const raw = request.conceptId ?? headingSlug(request.title)
    const name = raw.startsWith(`${dir}/`) ? raw.slice(dir.length + 1) : raw
    if (name === "") return yield* refuse("the item has no name", "give a title or a concept id")
    if (type === "skill") {
      if (name.includes("/")) return yield* refuse(`'${name}' is not a skill name`, "a skill is one directory under skills/, e.g. skills/pdf-processing")
      return yield* createSkill(request, ctx, `skills/${name}`, book)
    }
    let path: string
    let after: string
    switch (type) {
      case "script":
        path = `${dir}/${/\.[A-Za-z0-9]+$/.test(name) ? name : `${name}.sh`}`
        after = renderScript(request, path)
        break
      case "env":
        path = `${dir}/${name.replace(/\.env$/, "")}.env`
        after = yield* renderEnv(request)
        break
      case "task":
        path = `${dir}/${name.replace(/\.ya?ml$/, "")}.yml`
        after = yield* renderTask(request, book, (check) => (check === "dangerous-env-key" ? check : "invalid-task-yaml"))
        break
      case "workflow":
        path = `${dir}/${name.replace(/\.md$/, "")}.md`
        after = yield* renderWorkflow(request, book, () => "invalid-workflow-structure")
        break
      default:
        path = `${dir}/${name.replace(/\.md$/, "")}.md`
        after = renderWithFrontmatter(markdownFields(request), titled(request))
    }
    const conceptId = type === "script" ? path : path.replace(/\.(?:md|env|yml)$/, "")
    if (Either.isLeft(validateConceptId(conceptId))) return yield* refuse(`'${conceptId}' is not a valid concept id`, "use letters, digits, - and / in names")
    if (isOccupied(ctx, path) || (type === "task" && ctx.exists(`${conceptId}.yaml`))) return yield* refuse(`${conceptId} already exists`, "choose another name, or change the existing item through a proposal")
    return [{ bundle: ctx.bundle.name, path, beforeHash: null, after }]
  })
