import { normalizeText } from "../core/Frontmatter.js"

/**
 * A script's leading comment block (spec 03 "akm": scripts describe
 * themselves in comments): `@description …` and `@tags a, b` lines, other
 * `@key value` lines as hints (`@usage`, `@param` …), plain lines as text.
 * Reading stops at the first line of code; the code itself is never indexed.
 */
export interface ScriptHeader {
  readonly description?: string
  readonly tags: ReadonlyArray<string>
  readonly hints: ReadonlyArray<string>
  /** The plain comment text, for the projection's content. */
  readonly text: string
}

const COMMENT = /^\s*(?:#+|\/\/+|--|;+|\/\*+|\*+\/?|\*|REM\b|::|""")\s?(.*)$/i
const CLOSE = /\s*(?:\*\/|""")\s*$/
const TAG = /^@([A-Za-z][\w-]*)\s*:?\s*(.*)$/

const MAX_HEADER_LINES = 200

export const readScriptHeader = (input: string): ScriptHeader => {
  const lines = normalizeText(input).split("\n", MAX_HEADER_LINES)
  let description: string | undefined
  const tags: Array<string> = []
  const hints: Array<string> = []
  const text: Array<string> = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (i === 0 && line.startsWith("#!")) continue
    if (line.trim() === "") continue
    const comment = COMMENT.exec(line)
    if (comment === null) break
    const content = comment[1]!.replace(CLOSE, "").trim()
    if (content === "" || /^-\*-.*-\*-$/.test(content) || /^(?:eslint|prettier|shellcheck|type:|pylint|noqa)\b/.test(content)) continue
    const tag = TAG.exec(content)
    if (tag === null) {
      text.push(content)
      continue
    }
    const [, key, value] = tag
    if (key!.toLowerCase() === "description") description = [description, value!.trim()].filter((v) => v !== undefined && v !== "").join(" ")
    else if (key!.toLowerCase() === "tags") tags.push(...value!.split(",").map((t) => t.trim()).filter((t) => t !== ""))
    else if (value!.trim() !== "") hints.push(value!.trim())
  }
  const fallback = text[0]
  const chosen = description !== undefined && description !== "" ? description : fallback
  return { ...(chosen === undefined ? {} : { description: chosen }), tags, hints, text: text.join("\n") }
}
