import { Effect } from "effect"
import { AuthoringRefused, type CreateRequest, type ValidateContext } from "../../../domain/Adapter.js"
import type { FileChange } from "../../../domain/FileChange.js"
import type { AuthoringParts, RuleBook } from "../core/RuleBook.js"
import { createReference, createSkill, skillNameFromTitle } from "../skill-md/index.js"

const PREAMBLE = `An Agent Skills bundle holds one directory per skill at its root: \`<name>/SKILL.md\` (YAML frontmatter + markdown instructions),
optionally with \`references/*.md\` (documents the agent reads on demand), \`scripts/\` and \`assets/\`.
The directory name equals \`name\`. Frontmatter keys: \`name\`, \`description\` (required), \`license\`, \`compatibility\`, \`metadata\`, \`allowed-tools\`.
Refer to the skill's files by their path relative to the skill directory.`

const EXAMPLE = `---
name: pdf-processing
description: Extract text and tables from PDF files and fill PDF forms. Use when the user works with PDF documents.
---

# PDF processing

1. Run \`scripts/extract.py <file>\` to get the text.
2. For forms, read [the forms guide](references/forms.md).
`

export const AGENT_SKILLS_AUTHORING: AuthoringParts = {
  preamble: PREAMBLE,
  examples: [EXAMPLE],
  allowedPaths: ["<name>/SKILL.md", "<name>/references/*.md", "<name>/**/*.md"],
  constraints: ["a new skill is a new directory; never overwrite an existing one", "the directory name is the skill's name"]
}

/**
 * `type: skill` (default) creates `<name>/SKILL.md`, the name from the concept
 * id or else from the title; `type: reference` creates `<skill>/<path>.md`
 * from a concept id such as `pdf/references/forms`.
 */
export const createAgentSkillsItem = (book: RuleBook) => (request: CreateRequest, ctx: ValidateContext): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> => {
  if (!ctx.bundle.writable) return Effect.fail(new AuthoringRefused(`bundle ${ctx.bundle.name} is read-only`, "create the skill in a writable bundle"))
  const type = request.type ?? (request.conceptId?.includes("/") === true ? "reference" : "skill")
  if (type === "reference") {
    const id = request.conceptId ?? ""
    const slash = id.indexOf("/")
    if (slash <= 0) return Effect.fail(new AuthoringRefused("a reference needs a concept id such as <skill>/references/<name>", "pass the concept id of the new reference"))
    return createReference(request, ctx, id.slice(0, slash), id.slice(slash + 1))
  }
  if (type !== "skill") return Effect.fail(new AuthoringRefused(`an Agent Skills bundle holds skills and their references, not '${type}'`, "create a skill or a reference"))
  const name = request.conceptId ?? skillNameFromTitle(request.title)
  if (name === "" || name.includes("/")) return Effect.fail(new AuthoringRefused(`'${name}' is not a skill directory name`, "a skill is a directory at the bundle root named like the skill"))
  return createSkill(request, ctx, name, book)
}
