import { Effect } from "effect"
import type { FileUnreadable, ItemPlan, ProjectResult, ValidateContext } from "../../../domain/Adapter.js"
import type { Diagnostic } from "../../../domain/Diagnostic.js"
import { stringField, stringListField, type Frontmatter } from "../core/Frontmatter.js"
import type { Span } from "../core/Markdown.js"
import { readMarkdownFile, shortParagraph } from "../core/MarkdownDocument.js"
import { basenameOf, withoutMarkdownExtension } from "../core/Paths.js"
import { makeProjection, nameFromFile } from "../core/Projection.js"
import type { RuleBook } from "../core/RuleBook.js"
import { commandParameters } from "./commandParameters.js"
import { bundleFiles, danglingDiagnostics, linkReferences, resolvedLinks, type FileReference, type FileSet } from "./fileReferences.js"

/**
 * The markdown documents agent tools keep beside their skills — instruction
 * files (CLAUDE.md, AGENTS.md, rules), slash commands and agents — projected
 * the same way for the claude and opencode adapters.
 */

export interface InstructionOptions {
  /** Extra references found in the body's plain text, such as CLAUDE.md's `@path` imports. */
  readonly textReferences?: (text: ReadonlyArray<Span>, docPath: string, files: FileSet) => ReadonlyArray<FileReference>
}

/** An instruction file: body, relative links (and imports) as links, a rule's `paths:` globs as hints. */
export const projectInstructionFile = (item: ItemPlan, ctx: ValidateContext, book: RuleBook, options: InstructionOptions = {}): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.gen(function* () {
    const path = item.files[0]!
    const file = yield* readMarkdownFile(path, ctx, book)
    const { frontmatter: fm, scan } = file
    const diagnostics: Array<Diagnostic> = [...file.diagnostics]
    const rawPaths = fm.data?.["paths"]
    if (rawPaths !== undefined && !(typeof rawPaths === "string" || (Array.isArray(rawPaths) && rawPaths.every((p) => typeof p === "string")))) {
      diagnostics.push(...book.report("invalid-paths", path, "`paths` must be a glob or a list of globs", { line: fm.keyLines["paths"] }))
    }
    const paths = stringListField(fm.data, "paths")
    const files = bundleFiles(ctx)
    const references = [
      ...linkReferences(scan.links, path, files),
      ...(options.textReferences === undefined ? [] : options.textReferences(scan.textRuns, path, files))
    ]
    diagnostics.push(...danglingDiagnostics(book, path, references))
    const base = basenameOf(path)
    const projection = makeProjection(
      {
        type: "instruction",
        name: stringField(fm.data, "title") ?? scan.title ?? (/^[A-Z][A-Z.]*\.md$/.test(base) ? base : nameFromFile(path)),
        description: stringField(fm.data, "description") ?? shortParagraph(scan.firstParagraph),
        hints: paths,
        outline: scan.headings,
        content: scan.text,
        links: resolvedLinks(references)
      },
      paths.length === 0 ? {} : { extra: { paths } }
    )
    return { projection, diagnostics }
  })

export interface CommandOptions {
  /** Why a `model` value is not one the host accepts, or undefined when it is. */
  readonly modelProblem: (model: string) => string | undefined
}

/** A slash command: `/name`, description, argument hint, tools, model and its `$ARGUMENTS`/`$1…` parameters. */
export const projectCommandFile = (item: ItemPlan, ctx: ValidateContext, book: RuleBook, options: CommandOptions): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.gen(function* () {
    const path = item.files[0]!
    const file = yield* readMarkdownFile(path, ctx, book)
    const { frontmatter: fm, scan } = file
    const diagnostics: Array<Diagnostic> = [...file.diagnostics]
    const model = stringField(fm.data, "model")
    const problem = model === undefined ? undefined : options.modelProblem(model)
    if (problem !== undefined) diagnostics.push(...book.report("invalid-model", path, problem, { line: fm.keyLines["model"] }))
    const name = withoutMarkdownExtension(basenameOf(path))
    const parameters = commandParameters(fm.body)
    const argumentHint = stringField(fm.data, "argument-hint")
    const allowedTools = stringListField(fm.data, "allowed-tools")
    const agent = stringField(fm.data, "agent")
    const projection = makeProjection(
      {
        type: "command",
        name,
        description: stringField(fm.data, "description") ?? shortParagraph(scan.firstParagraph),
        hints: [`/${name}`, ...(argumentHint === undefined ? [] : [argumentHint]), ...parameters, ...allowedTools],
        outline: scan.headings,
        content: scan.text
      },
      {
        extra: {
          invocation: `/${name}`,
          parameters,
          ...(argumentHint === undefined ? {} : { argumentHint }),
          ...(allowedTools.length === 0 ? {} : { allowedTools }),
          ...(model === undefined ? {} : { model }),
          ...(agent === undefined ? {} : { agent })
        }
      }
    )
    return { projection, diagnostics }
  })

export interface AgentOptions {
  /** The agent's name: Claude Code reads `name`, OpenCode the file name. */
  readonly name: (frontmatter: Frontmatter, path: string) => string
  readonly hints: (frontmatter: Frontmatter) => ReadonlyArray<string>
  /** What the projection's `extra` carries (tools, model …). */
  readonly extra: (frontmatter: Frontmatter) => Readonly<Record<string, unknown>>
  /** The host's checks of the agent's frontmatter. */
  readonly check: (path: string, frontmatter: Frontmatter, book: RuleBook) => ReadonlyArray<Diagnostic>
}

/** An agent (subagent) file: its frontmatter describes it, its body is the agent's prompt. */
export const projectAgentFile = (item: ItemPlan, ctx: ValidateContext, book: RuleBook, options: AgentOptions): Effect.Effect<ProjectResult, FileUnreadable> =>
  Effect.map(readMarkdownFile(item.files[0]!, ctx, book), ({ frontmatter, scan, diagnostics }) => {
    const path = item.files[0]!
    const projection = makeProjection(
      {
        type: "agent",
        name: options.name(frontmatter, path),
        description: stringField(frontmatter.data, "description"),
        hints: options.hints(frontmatter),
        outline: scan.headings,
        content: scan.text
      },
      { extra: options.extra(frontmatter) }
    )
    return { projection, diagnostics: [...diagnostics, ...options.check(path, frontmatter, book)] }
  })
