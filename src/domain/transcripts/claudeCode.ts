import { asRecord, asString, isoTime, parseJsonLines, type ParsedTranscripts, type Turn } from "./Transcript.js"

/**
 * Claude Code: one JSONL file per session under `~/.claude/projects/<cwd
 * slug>/<session id>.jsonl`. A record has `type` (`user`, `assistant`, and
 * others such as `system` or `summary` that carry no turn), `sessionId`,
 * `timestamp`, `cwd` and `message: { role, content }`, where `content` is a
 * string (what the user typed) or a list of blocks: `text`, `thinking`,
 * `tool_use` (`name`, `input`) and `tool_result` (`content`, `is_error`).
 * Records marked `isMeta` are injected by the harness, not typed.
 */
export const parseClaudeCode = (file: string, text: string, since?: number): ParsedTranscripts => {
  const { records, problems: unreadable } = parseJsonLines(file, text)
  const problems = [...unreadable]
  const sessions = new Map<string, Array<Turn>>()
  const fallback = file.replace(/^.*[\\/]/, "").replace(/\.jsonl$/, "")
  for (const { line, value } of records) {
    if ((value.type !== "user" && value.type !== "assistant") || value.isMeta === true) continue
    const at = isoTime(value.timestamp)
    if (since !== undefined && at !== undefined && Date.parse(at) < since) continue
    const message = asRecord(value.message)
    if (message === undefined) {
      problems.push({ file, line, message: `a ${String(value.type)} record without a message; skipped` })
      continue
    }
    const session = asString(value.sessionId) ?? fallback
    const turns = sessions.get(session) ?? []
    sessions.set(session, turns)
    const origin = `${file}:${line}`
    const role = value.type === "user" ? "user" : "assistant"
    const content = message.content
    if (typeof content === "string") {
      turns.push({ role, text: content, at, origin })
      continue
    }
    if (!Array.isArray(content)) continue
    const texts: Array<string> = []
    for (const block of content.map(asRecord)) {
      if (block === undefined) continue
      if (block.type === "text" && typeof block.text === "string") texts.push(block.text)
      else if (block.type === "tool_use") turns.push({ role: "call", tool: asString(block.name), text: `${asString(block.name) ?? "tool"} ${JSON.stringify(block.input ?? {})}`, at, origin })
      else if (block.type === "tool_result") turns.push({ role: "result", failed: block.is_error === true, text: resultText(block.content), at, origin })
    }
    if (texts.length > 0) turns.push({ role, text: texts.join("\n"), at, origin })
  }
  return { transcripts: [...sessions].map(([sessionId, turns]) => ({ sessionId, turns })), problems }
}

const resultText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.flatMap((c) => {
      const text = asRecord(c)?.text
      return typeof text === "string" ? [text] : []
    }).join("\n")
    : ""
