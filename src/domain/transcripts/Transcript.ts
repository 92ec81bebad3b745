/**
 * An agent session as the importers read it (spec 06 §1): the turns of one
 * session in order, whatever tool wrote it. Each tool's format is parsed into
 * this by its own module; extraction (extract.ts) sees only this shape.
 */
export type TranscriptTool = "claude-code" | "codex" | "opencode"

export const TRANSCRIPT_TOOLS: ReadonlyArray<TranscriptTool> = ["claude-code", "codex", "opencode"]

export interface Turn {
  /** `call` is the agent invoking a tool, `result` what the tool returned. */
  readonly role: "user" | "assistant" | "call" | "result"
  readonly text: string
  /** A tool result that reports an error or a non-zero exit. */
  readonly failed?: boolean | undefined
  readonly tool?: string | undefined
  /** ISO time of the record, when it has one. */
  readonly at?: string | undefined
  /** `file:line` (JSONL) or the file (one JSON file per part). */
  readonly origin: string
}

export interface Transcript {
  readonly sessionId: string
  readonly turns: ReadonlyArray<Turn>
}

/** A record that could not be read; the rest of the file still counts. */
export interface TranscriptProblem {
  readonly file: string
  readonly line?: number | undefined
  readonly message: string
}

export interface ParsedTranscripts {
  readonly transcripts: ReadonlyArray<Transcript>
  readonly problems: ReadonlyArray<TranscriptProblem>
}

/** One JSONL line parsed, or the problem naming its line. */
export const parseJsonLines = (file: string, text: string): { readonly records: ReadonlyArray<{ readonly line: number; readonly value: Record<string, unknown> }>; readonly problems: ReadonlyArray<TranscriptProblem> } => {
  const records: Array<{ line: number; value: Record<string, unknown> }> = []
  const problems: Array<TranscriptProblem> = []
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim()
    if (line === "") return
    try {
      const value: unknown = JSON.parse(line)
      if (typeof value === "object" && value !== null && !Array.isArray(value)) records.push({ line: i + 1, value: value as Record<string, unknown> })
      else problems.push({ file, line: i + 1, message: "not a JSON object; skipped" })
    } catch {
      problems.push({ file, line: i + 1, message: "not valid JSON (a truncated or corrupted line); skipped" })
    }
  })
  return { records, problems }
}

export const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

export const asString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** An epoch-milliseconds or ISO value as ISO; undefined when it is neither. */
export const isoTime = (value: unknown): string | undefined => {
  const ms = typeof value === "number" ? value : typeof value === "string" ? Date.parse(value) : Number.NaN
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined
}

/**
 * Where each tool keeps its transcripts by default: Claude Code under
 * `$CLAUDE_CONFIG_DIR` or `~/.claude`, `projects/`; Codex under `$CODEX_HOME`
 * or `~/.codex`, `sessions/`; OpenCode under `$XDG_DATA_HOME` or
 * `~/.local/share`, `opencode/storage/`.
 */
export const defaultTranscriptDir = (tool: TranscriptTool, env: Readonly<Record<string, string | undefined>>, home: string): string => {
  const nonEmpty = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value)
  switch (tool) {
    case "claude-code":
      return `${nonEmpty(env.CLAUDE_CONFIG_DIR) ?? `${home}/.claude`}/projects`
    case "codex":
      return `${nonEmpty(env.CODEX_HOME) ?? `${home}/.codex`}/sessions`
    case "opencode":
      return `${nonEmpty(env.XDG_DATA_HOME) ?? `${home}/.local/share`}/opencode/storage`
  }
}
