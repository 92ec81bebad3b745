import { normalizeText } from "../core/Frontmatter.js"

/** What a script says about itself in its leading comment block. */
export interface ScriptHeader {
  /** `@description …`, else the first comment line that is not a tool directive. */
  readonly description: string | undefined
  /** `@tags a, b` */
  readonly tags: ReadonlyArray<string>
  /** The comment block's text without tool directives, one comment line per line. */
  readonly text: string
}

interface CommentSyntax {
  /** Line comment prefixes. */
  readonly line: ReadonlyArray<string>
  /** Block comment delimiters, [open, close]. */
  readonly blocks: ReadonlyArray<readonly [string, string]>
}

const HASH: CommentSyntax = { line: ["#"], blocks: [] }
const SLASH: CommentSyntax = { line: ["//"], blocks: [["/*", "*/"]] }

/** Comment syntax per script extension (kinds.ts lists the extensions that are scripts). */
const SYNTAX: Record<string, CommentSyntax> = {
  py: { line: ["#"], blocks: [['"""', '"""'], ["'''", "'''"]] },
  ps1: { line: ["#"], blocks: [["<#", "#>"]] },
  psm1: { line: ["#"], blocks: [["<#", "#>"]] },
  php: { line: ["#", "//"], blocks: [["/*", "*/"]] },
  lua: { line: ["--"], blocks: [] },
  bat: { line: ["rem ", "::"], blocks: [] },
  cmd: { line: ["rem ", "::"], blocks: [] },
  js: SLASH, mjs: SLASH, cjs: SLASH, ts: SLASH, mts: SLASH, cts: SLASH
}

/** Comment lines that configure tools (or are PowerShell help keywords such as `.SYNOPSIS`) rather than describe the script. */
const DIRECTIVE = /^(?:-\*-|eslint|@ts-|shellcheck|vim?:|ex:|coding[:=]|spdx-license-identifier|prettier-|jshint|global\s|!|\.[A-Z]+$)/i
const TAG = /^@([a-z][\w-]*)\s*:?\s*(.*)$/i

/** The comment lines at the top of a script, after a shebang; stops at the first line of code. */
const leadingComments = (source: string, syntax: CommentSyntax): ReadonlyArray<string> => {
  const lines = normalizeText(source).split("\n")
  const comments: Array<string> = []
  let i = lines[0]?.startsWith("#!") ? 1 : 0
  scan: while (i < lines.length) {
    const line = lines[i]!.trim()
    if (line === "" || line === "@echo off") {
      i++
      continue
    }
    for (const [open, close] of syntax.blocks) {
      if (!line.startsWith(open)) continue
      let rest = line.slice(open.length)
      for (;;) {
        const end = rest.indexOf(close)
        // JSDoc-style continuation lines start with "*".
        const content = (end === -1 ? rest : rest.slice(0, end)).replace(/^\*+(?!\/)/, "").trim()
        if (content !== "") comments.push(content)
        if (end !== -1 || ++i >= lines.length) break
        rest = lines[i]!.trim()
      }
      i++
      continue scan
    }
    const prefix = syntax.line.find((p) => line.toLowerCase().startsWith(p))
    if (prefix === undefined) break
    comments.push(line.slice(prefix.length).replace(/^[#/-]+/, "").trim())
    i++
  }
  return comments
}

/**
 * Reads a script's leading comment block (spec 03: scripts are described by
 * their leading comments, `# @description …` first).
 */
export const readScriptHeader = (source: string, extension: string): ScriptHeader => {
  const comments = leadingComments(source, SYNTAX[extension] ?? HASH)
  let description: string | undefined
  let firstLine: string | undefined
  let tags: ReadonlyArray<string> = []
  for (const comment of comments) {
    const tag = TAG.exec(comment)
    if (tag !== null) {
      const name = tag[1]!.toLowerCase()
      const value = tag[2]!.trim()
      if (name === "description" && description === undefined && value !== "") description = value
      if (name === "tags") tags = value.split(",").map((t) => t.trim()).filter((t) => t !== "")
      continue
    }
    if (firstLine === undefined && comment !== "" && !DIRECTIVE.test(comment)) firstLine = comment
  }
  return { description: description ?? firstLine, tags, text: comments.filter((c) => c !== "" && !DIRECTIVE.test(c)).join("\n") }
}
