import { Effect, Option } from "effect"
import type { FileMeta, FileUnreadable, ItemPlan, PlanResult, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { headingSlug } from "../../../domain/Ref.js"
import { stringField } from "../core/Frontmatter.js"
import { scanMarkdown } from "../core/Markdown.js"
import { frontmatterDiagnostics, readMarkdown, shortParagraph } from "../core/MarkdownDocument.js"
import { basenameOf, isMarkdownPath, withoutMarkdownExtension } from "../core/Paths.js"
import { makeProjection, metadataHints, nameFromFile, uniqueSorted } from "../core/Projection.js"
import { sha256, type RuleBook } from "../core/RuleBook.js"
import type { FileChange } from "../../../domain/FileChange.js"
import { bundleFiles, danglingDiagnostics, filesUnder, resolvedLinks, skillFileReferences } from "./fileReferences.js"
import { checkSkillMd } from "./SkillMd.js"

/**
 * Skill directories as items (spec 03 "agent-skills"): the directory is the
 * item (concept id = its path), SKILL.md its primary file; every other
 * markdown file inside it is an item of its own (type `reference`, concept id
 * = the skill's id + its path without `.md`), linked both ways; other files
 * (scripts, assets) appear only in the skill's outline. Used by every adapter
 * whose bundles hold skills, each with its own parent directories and table.
 */

/** Where skill directories live: their parent directories, "" = the bundle root. */
export type SkillParents = ReadonlyArray<string>

export const SKILL_KIND = "skill"
export const REFERENCE_KIND = "reference"

/** The skill directory holding `path`, or undefined when `path` is not inside one. */
export const skillDirOf = (path: string, parents: SkillParents): string | undefined => {
  for (const parent of [...parents].sort((a, b) => b.length - a.length)) {
    const prefix = parent === "" ? "" : `${parent}/`
    if (!path.startsWith(prefix)) continue
    const rest = path.slice(prefix.length)
    const slash = rest.indexOf("/")
    if (slash <= 0) return undefined
    const name = rest.slice(0, slash)
    if (name.startsWith(".")) return undefined
    return `${prefix}${name}`
  }
  return undefined
}

/** SKILL.md, or the lowercase skill.md skills-ref accepts when SKILL.md is absent. */
export const skillFileIn = (skillDir: string, has: (path: string) => boolean): string | undefined =>
  [`${skillDir}/SKILL.md`, `${skillDir}/skill.md`].find(has)

/**
 * Plans the skill directories under `parents` (the skill and each markdown
 * file in it) and every other file through `itemOf` (undefined: not an item).
 */
export const planSkills = (
  files: ReadonlyArray<FileMeta>,
  parents: SkillParents,
  book: RuleBook,
  itemOf: (path: string) => ItemPlan | undefined = () => undefined
): PlanResult => {
  const groups = new Map<string, Array<string>>()
  const others: Array<ItemPlan> = []
  for (const { path } of files) {
    const skillDir = skillDirOf(path, parents)
    if (skillDir === undefined) {
      const item = itemOf(path)
      if (item !== undefined) others.push(item)
      continue
    }
    const group = groups.get(skillDir) ?? []
    group.push(path)
    groups.set(skillDir, group)
  }
  const items: Array<ItemPlan> = []
  const diagnostics: Array<Diagnostic> = []
  for (const [skillDir, paths] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    paths.sort()
    const present = new Set(paths)
    const skillFile = skillFileIn(skillDir, (p) => present.has(p))
    if (skillFile === undefined) {
      diagnostics.push(...book.report("missing-skill-md", skillDir, `directory ${skillDir} has files but no SKILL.md, so it is not a skill and is not indexed`))
      continue
    }
    items.push({ conceptId: skillDir, files: [skillFile, ...paths.filter((p) => p !== skillFile)], kind: SKILL_KIND })
    for (const path of paths) {
      if (path !== skillFile && isMarkdownPath(path)) items.push({ conceptId: withoutMarkdownExtension(path), files: [path], kind: REFERENCE_KIND })
    }
  }
  return { items: [...items, ...others], diagnostics }
}

/** skills-ref's path-level checks for one directory claimed to be a skill: it exists, is a directory, holds SKILL.md. */
export const skillDirectoryProblem = (dir: string, ctx: Pick<ValidateContext, "files" | "exists">): string | undefined => {
  if (ctx.exists(dir) && !ctx.files.some((f) => f.path.startsWith(`${dir}/`))) return `${dir} is a file, not a skill directory`
  if (!ctx.files.some((f) => f.path.startsWith(`${dir}/`))) return `${dir} does not exist or is empty`
  return skillFileIn(dir, ctx.exists) === undefined ? `${dir} has no SKILL.md` : undefined
}

export interface SkillProjectOptions {
  readonly book: RuleBook
  readonly parents: SkillParents
}

/** The projection of a skill or of a document inside one; undefined for items of other kinds. */
export const projectSkillItem = (item: ItemPlan, ctx: ValidateContext, options: SkillProjectOptions): Effect.Effect<ProjectResult, FileUnreadable> | undefined =>
  item.kind === SKILL_KIND
    ? Effect.map(projectSkill(item, ctx, options), ({ projection, diagnostics }) => ({ projection, diagnostics }))
    : item.kind === REFERENCE_KIND ? projectReference(item, ctx, options) : undefined

/** A skill's projection with its SKILL.md frontmatter as parsed, for adapters that read more of it (akm's signals). */
export interface SkillProjectResult extends ProjectResult {
  readonly frontmatter: Readonly<Record<string, unknown>> | undefined
  /** The line of each top-level frontmatter key (parseFrontmatter's keyLines). */
  readonly frontmatterKeyLines: Readonly<Record<string, number>>
}

/** A skill: SKILL.md through the codec, its body, its files in the outline, links to its references. */
export const projectSkill = (item: ItemPlan, ctx: ValidateContext, options: SkillProjectOptions): Effect.Effect<SkillProjectResult, FileUnreadable> =>
  Effect.gen(function* () {
    const skillFile = item.files[0]!
    const skillDir = item.conceptId
    const text = yield* ctx.readText(skillFile)
    const check = checkSkillMd({ path: skillFile, dirName: basenameOf(skillDir), text, book: options.book, bundle: ctx.bundle.name })
    const scan = scanMarkdown(check.skill.body, check.skill.bodyLine - 1)
    const others = item.files.slice(1)
    const references = skillFileReferences({
      docPath: skillFile,
      skillDir,
      links: scan.links,
      codeSpans: scan.codeSpans,
      files: bundleFiles(ctx),
      skillFiles: others
    })
    const resources = others.map((path) => ({ path: path.slice(skillDir.length + 1), kind: isMarkdownPath(path) ? REFERENCE_KIND : "file" }))
    const props = check.properties
    const projection = makeProjection(
      {
        type: "skill",
        name: props.name ?? basenameOf(skillDir),
        description: props.description,
        hints: metadataHints(check.skill.fields, ["when_to_use", "argument-hint", "compatibility", "allowed-tools"]),
        outline: [...scan.headings, ...resources.map((r) => ({ depth: 0, text: r.path, slug: headingSlug(r.path) }))],
        content: scan.text,
        links: uniqueSorted([...resolvedLinks(references), ...others.filter(isMarkdownPath).map(withoutMarkdownExtension)])
      },
      {
        extra: {
          skillFile,
          ...(props.license === undefined ? {} : { license: props.license }),
          ...(props.compatibility === undefined ? {} : { compatibility: props.compatibility }),
          ...(props.allowedTools === undefined ? {} : { allowedTools: props.allowedTools }),
          ...(props.metadata === undefined ? {} : { metadata: props.metadata }),
          resources
        }
      }
    )
    const checked = yield* Effect.forEach(check.diagnostics, (d) => (d.code === "name-directory-mismatch" && props.name !== undefined ? withFolderRename(d, item, ctx, props.name) : Effect.succeed(d)))
    return { projection, diagnostics: [...checked, ...danglingDiagnostics(options.book, skillFile, references)], frontmatter: check.skill.frontmatter.data, frontmatterKeyLines: check.skill.frontmatter.keyLines }
  })

/**
 * The fix for a skill whose folder and name differ: move every file of the folder to a folder named
 * like the skill, as a semantic change for review (the skill's ref changes). Never the other way:
 * rewriting `name` would silently rename the skill. No fix when the target folder is taken, the
 * name is no valid folder name, or a file cannot be carried over as text.
 */
const withFolderRename = (d: Diagnostic, item: ItemPlan, ctx: ValidateContext, name: string): Effect.Effect<Diagnostic> =>
  Effect.gen(function* () {
    const skillDir = item.conceptId
    const parent = skillDir.includes("/") ? skillDir.slice(0, skillDir.lastIndexOf("/") + 1) : ""
    const target = `${parent}${name}`
    const hint = `${d.message}; \`akm lint --fix\` proposes renaming the folder to '${target}' for review`
    if (!/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(name) || ctx.files.some((f) => f.path === target || f.path.startsWith(`${target}/`))) return d
    const paths = ctx.files.map((f) => f.path).filter((path) => path.startsWith(`${skillDir}/`)).sort()
    const texts = Option.all(yield* Effect.forEach(paths, (path) => Effect.option(ctx.readText(path))))
    if (Option.isNone(texts)) return d
    const fix: Array<FileChange> = paths.flatMap((path, i) => {
      const text = texts.value[i]!
      return [
        { bundle: ctx.bundle.name, path, beforeHash: sha256(text), delete: true as const },
        { bundle: ctx.bundle.name, path: `${target}${path.slice(skillDir.length)}`, beforeHash: null, after: text }
      ]
    })
    return { ...d, message: hint, fix, fixClass: "semantic" as const }
  })

/** A markdown file inside a skill: its own item, type `reference`, linked to its skill. */
export const projectReference = (item: ItemPlan, ctx: ValidateContext, options: SkillProjectOptions): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.gen(function* () {
    const path = item.files[0]!
    const skillDir = skillDirOf(path, options.parents) ?? path
    const { frontmatter: fm, scan } = readMarkdown(yield* ctx.readText(path))
    const diagnostics: Array<Diagnostic> = [...frontmatterDiagnostics(path, fm, options.book)]
    const references = skillFileReferences({
      docPath: path,
      skillDir,
      links: scan.links,
      codeSpans: scan.codeSpans,
      files: bundleFiles(ctx),
      skillFiles: filesUnder(ctx, skillDir)
    })
    diagnostics.push(...danglingDiagnostics(options.book, path, references))
    const projection = makeProjection(
      {
        type: REFERENCE_KIND,
        name: stringField(fm.data, "title") ?? stringField(fm.data, "name") ?? scan.title ?? nameFromFile(path),
        description: stringField(fm.data, "description") ?? shortParagraph(scan.firstParagraph),
        outline: scan.headings,
        content: scan.text,
        links: uniqueSorted([skillDir, ...resolvedLinks(references).filter((id) => id !== item.conceptId)])
      },
      { extra: { skill: skillDir } }
    )
    return { projection, diagnostics }
  })
