import { Effect } from "effect"
import { AuthoringRefused, type CreateRequest, type ValidateContext } from "../../../domain/Adapter.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { renderWithFrontmatter } from "../core/FrontmatterEdit.js"
import { basenameOf, isOccupied } from "../core/Paths.js"
import { refuseErrors, type RuleBook } from "../core/RuleBook.js"
import { skillFileIn } from "./skillDirectory.js"
import { checkSkillMd } from "./SkillMd.js"

/**
 * Writing a new skill (`<dir>/SKILL.md`) or a new reference file inside one.
 * The rendered SKILL.md is checked with the same codec and rule table that
 * scanning uses, so anything the validator calls an error is refused here.
 */

/** The body as given, or a title heading when it is empty. */
const bodyOf = (request: CreateRequest): string => (request.body.trim() === "" ? `# ${request.title}\n` : request.body)

export const createSkill = (request: CreateRequest, ctx: ValidateContext, skillDir: string, book: RuleBook): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> =>
  Effect.gen(function* () {
    if (isOccupied(ctx, skillDir)) {
      return yield* Effect.fail(new AuthoringRefused(`${skillDir} already exists`, "choose another name, or change the existing skill through a proposal"))
    }
    const name = basenameOf(skillDir)
    const { name: _name, description: _description, ...extra } = request.fields ?? {}
    const path = `${skillDir}/SKILL.md`
    const after = renderWithFrontmatter({ name, description: request.description, ...extra }, bodyOf(request))
    yield* refuseErrors("SKILL.md", checkSkillMd({ path, dirName: name, text: after, book }).diagnostics, book)
    return [{ bundle: ctx.bundle.name, path, beforeHash: null, after }]
  })

/** A markdown reference file inside an existing skill: `<skillDir>/<inner>.md`. */
export const createReference = (request: CreateRequest, ctx: ValidateContext, skillDir: string, inner: string): Effect.Effect<ReadonlyArray<FileChange>, AuthoringRefused> =>
  Effect.gen(function* () {
    if (skillFileIn(skillDir, ctx.exists) === undefined) {
      return yield* Effect.fail(new AuthoringRefused(`there is no skill at ${skillDir}`, "create the skill first, then its reference files"))
    }
    if (inner === "" || inner.split("/").some((s) => s === "" || s === "." || s === "..")) {
      return yield* Effect.fail(new AuthoringRefused(`'${inner}' is not a path inside the skill`, "name the reference like references/<name>"))
    }
    const path = `${skillDir}/${inner}.md`
    if (/^skill\.md$/i.test(`${inner}.md`)) return yield* Effect.fail(new AuthoringRefused(`${path} is the skill's own file`, "name the reference like references/<name>"))
    if (isOccupied(ctx, path)) return yield* Effect.fail(new AuthoringRefused(`${path} already exists`, "choose another name, or change the file through a proposal"))
    // Reference files are plain markdown: the title and description lead the body.
    const lead = request.body.trimStart().startsWith("#") ? "" : `# ${request.title}\n\n${request.description === undefined ? "" : `${request.description}\n\n`}`
    const after = `${lead}${request.body.trim()}\n`
    return [{ bundle: ctx.bundle.name, path, beforeHash: null, after }]
  })
