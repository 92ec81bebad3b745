import { asRecord, asString, isoTime, parseJsonLines, type ParsedTranscripts, type Turn } from "./Transcript.js"

/** Context the CLI injects as user messages: not typed by anyone. */
const INJECTED = /^\s*<(environment_context|user_instructions|permissions instructions)>|^\s*# AGENTS\.md instructions/

/**
 * Codex CLI: one JSONL "rollout" per session under
 * `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (CODEX_HOME
 * defaults to `~/.codex`). Each line is `{ timestamp, type, payload }`:
 * `session_meta` (payload `id`, `cwd`) first, then `response_item` payloads —
 * `message` (`role`, `content: [{ type: input_text | output_text, text }]`),
 * `function_call` (`name`, `arguments`, `call_id`) and `function_call_output`
 * (`call_id`, `output`: often JSON `{ output, metadata: { exit_code } }`).
 * `event_msg` and `turn_context` repeat or describe turns and are skipped.
 * Older rollouts put the item itself on the line, without the envelope.
 */
export const parseCodex = (file: string, text: string, since?: number): ParsedTranscripts => {
  const { records, problems } = parseJsonLines(file, text)
  let sessionId = file.replace(/^.*[\\/]/, "").replace(/\.jsonl$/, "").replace(/^rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-/, "")
  const turns: Array<Turn> = []
  const tools = new Map<string, string>()
  for (const { line, value } of records) {
    if (value.type === "session_meta") {
      sessionId = asString(asRecord(value.payload)?.id) ?? sessionId
      continue
    }
    const item = value.type === "response_item" ? asRecord(value.payload) : value.payload === undefined ? value : undefined
    if (item === undefined) continue
    const at = isoTime(value.timestamp)
    if (since !== undefined && at !== undefined && Date.parse(at) < since) continue
    const origin = `${file}:${line}`
    if (item.type === "message") {
      const role = item.role === "user" ? "user" : item.role === "assistant" ? "assistant" : undefined
      const content = Array.isArray(item.content) ? item.content : []
      const body = content.flatMap((c) => {
        const t = asRecord(c)?.text
        return typeof t === "string" ? [t] : []
      }).join("\n")
      if (role === undefined || body.trim() === "" || (role === "user" && INJECTED.test(body))) continue
      turns.push({ role, text: body, at, origin })
    } else if (item.type === "function_call" || item.type === "local_shell_call" || item.type === "custom_tool_call") {
      const name = asString(item.name) ?? "shell"
      const callId = asString(item.call_id)
      if (callId !== undefined) tools.set(callId, name)
      turns.push({ role: "call", tool: name, text: `${name} ${asString(item.arguments) ?? JSON.stringify(item.action ?? item.input ?? {})}`, at, origin })
    } else if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
      const { output, exitCode } = outputOf(item.output)
      turns.push({ role: "result", tool: tools.get(asString(item.call_id) ?? ""), failed: exitCode !== undefined && exitCode !== 0, text: output, at, origin })
    }
  }
  return { transcripts: turns.length === 0 ? [] : [{ sessionId, turns }], problems }
}

/** The output text and exit code of a tool result: JSON with metadata, or plain text with an "Exit code: N" line. */
const outputOf = (raw: unknown): { readonly output: string; readonly exitCode?: number | undefined } => {
  const text = typeof raw === "string" ? raw : asString(asRecord(raw)?.content) ?? JSON.stringify(raw ?? "")
  try {
    const parsed = asRecord(JSON.parse(text))
    const code = asRecord(parsed?.metadata)?.exit_code
    if (parsed !== undefined) return { output: asString(parsed.output) ?? text, exitCode: typeof code === "number" ? code : undefined }
  } catch {
    // plain text output
  }
  const exit = /^(?:Process exited with code|Exit code:?)\s*(-?\d+)/im.exec(text)
  return { output: text, exitCode: exit === null ? undefined : Number(exit[1]) }
}
