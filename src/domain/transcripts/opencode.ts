import { asRecord, asString, isoTime, type ParsedTranscripts, type TranscriptProblem, type Turn } from "./Transcript.js"

/** A JSON file as read: its path and text. */
export interface JsonFile {
  readonly file: string
  readonly text: string
}

/** One OpenCode message file and its part files. */
export interface OpenCodeMessageFiles extends JsonFile {
  readonly parts: ReadonlyArray<JsonFile>
}

export interface OpenCodeSessionFiles {
  /** `storage/session/<project>/<session id>.json`; absent when only messages remain. */
  readonly session?: JsonFile | undefined
  readonly sessionId: string
  readonly messages: ReadonlyArray<OpenCodeMessageFiles>
}

const parse = (f: JsonFile, problems: Array<TranscriptProblem>): Record<string, unknown> | undefined => {
  try {
    const value = asRecord(JSON.parse(f.text))
    if (value === undefined) problems.push({ file: f.file, line: 1, message: "not a JSON object; skipped" })
    return value
  } catch {
    problems.push({ file: f.file, line: 1, message: "not valid JSON (a truncated or corrupted file); skipped" })
    return undefined
  }
}

/**
 * OpenCode: JSON files under `$XDG_DATA_HOME/opencode/storage/` (default
 * `~/.local/share/opencode/storage/`): `session/<project>/<session>.json`
 * (`id`, `title`, `directory`, `time.created`), `message/<session>/<message>.json`
 * (`id`, `sessionID`, `role`, `time.created` in epoch ms) and
 * `part/<message>/<part>.json` holding the content: `text` parts (`text`,
 * `synthetic` when injected) and `tool` parts (`tool`, `state: { status:
 * completed | error, input, output, error }`).
 */
export const parseOpenCode = (sessions: ReadonlyArray<OpenCodeSessionFiles>, since?: number): ParsedTranscripts => {
  const problems: Array<TranscriptProblem> = []
  const transcripts = sessions.flatMap((s) => {
    if (s.session !== undefined) parse(s.session, problems)
    const messages = s.messages.flatMap((m) => {
      const value = parse(m, problems)
      if (value === undefined) return []
      const time = asRecord(value.time)
      return [{ m, value, at: isoTime(time?.created), created: typeof time?.created === "number" ? time.created : 0 }]
    }).sort((a, b) => a.created - b.created || a.m.file.localeCompare(b.m.file))
    const turns: Array<Turn> = []
    for (const { m, value, at } of messages) {
      if (since !== undefined && at !== undefined && Date.parse(at) < since) continue
      const role = value.role === "user" ? "user" : "assistant"
      for (const p of [...m.parts].sort((a, b) => a.file.localeCompare(b.file))) {
        const part = parse(p, problems)
        if (part === undefined) continue
        if (part.type === "text" && typeof part.text === "string" && part.synthetic !== true) turns.push({ role, text: part.text, at, origin: p.file })
        else if (part.type === "tool") {
          const state = asRecord(part.state)
          const tool = asString(part.tool) ?? "tool"
          turns.push({ role: "call", tool, text: `${tool} ${JSON.stringify(state?.input ?? {})}`, at, origin: p.file })
          if (state?.status === "error") turns.push({ role: "result", tool, failed: true, text: asString(state.error) ?? "", at, origin: p.file })
          else if (state?.status === "completed") turns.push({ role: "result", tool, failed: false, text: asString(state.output) ?? "", at, origin: p.file })
        }
      }
    }
    return turns.length === 0 ? [] : [{ sessionId: s.sessionId, turns }]
  })
  return { transcripts, problems }
}
