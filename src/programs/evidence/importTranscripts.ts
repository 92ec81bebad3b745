import { FileSystem } from "@effect/platform/FileSystem"
import { Clock, Effect } from "effect"
import * as path from "node:path"
import { NotFound, UsageError } from "../../domain/Errors.js"
import type { Evidence, EvidenceInput } from "../../domain/Evidence.js"
import { evidenceHash, evidenceId } from "../../domain/EvidenceIdentity.js"
import { parseClaudeCode } from "../../domain/transcripts/claudeCode.js"
import { parseCodex } from "../../domain/transcripts/codex.js"
import { extractEvidence } from "../../domain/transcripts/extract.js"
import { parseOpenCode, type JsonFile, type OpenCodeSessionFiles } from "../../domain/transcripts/opencode.js"
import { parseSinceSpan } from "../../domain/transcripts/since.js"
import type { ParsedTranscripts, TranscriptProblem, TranscriptTool } from "../../domain/transcripts/Transcript.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { redactInputs } from "./redactInputs.js"

export interface ImportTranscriptsInput {
  readonly tool: TranscriptTool
  /** The tool's transcript folder (the CLI defaults it from the home directory). */
  readonly dir: string
  /** `24h`, `7d`, an ISO date: only records (and files) from then on. */
  readonly since?: string | undefined
}

export interface ImportTranscriptsResult {
  readonly tool: TranscriptTool
  readonly dir: string
  readonly files: number
  readonly sessions: number
  /** Rows extracted; `added` of them were new (a re-import adds none). */
  readonly found: number
  readonly added: number
  readonly rows: ReadonlyArray<Evidence>
  /** Lines or files that could not be read; everything else was imported. */
  readonly problems: ReadonlyArray<TranscriptProblem>
}

const isDirectory = (fs: FileSystem, dir: string) => Effect.map(Effect.option(fs.stat(dir)), (info) => info._tag === "Some" && info.value.type === "Directory")

/** Files under `dir` (recursively) ending in `suffix`, sorted, modified at or after `since`. */
const filesUnder = (fs: FileSystem, dir: string, suffix: string, since: number | undefined) =>
  Effect.gen(function* () {
    const names = (yield* Effect.orElseSucceed(fs.readDirectory(dir, { recursive: true }), () => [] as Array<string>)).filter((n) => n.endsWith(suffix)).sort()
    const out: Array<string> = []
    for (const name of names) {
      const file = path.join(dir, name)
      const info = yield* Effect.option(fs.stat(file))
      if (info._tag === "None" || info.value.type !== "File") continue
      const mtime = info.value.mtime._tag === "Some" ? info.value.mtime.value.getTime() : undefined
      if (since !== undefined && mtime !== undefined && mtime < since) continue
      out.push(file)
    }
    return out
  })

const readText = (fs: FileSystem, file: string, problems: Array<TranscriptProblem>) =>
  Effect.catchAll(fs.readFileString(file), (e) => Effect.sync(() => {
    problems.push({ file, message: `unreadable: ${e.message}` })
    return undefined
  }))

/** Claude Code and Codex: JSONL files, one parse each. */
const readJsonl = (dir: string, since: number | undefined, parse: (file: string, text: string, since?: number) => ParsedTranscripts) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const problems: Array<TranscriptProblem> = []
    const files = yield* filesUnder(fs, dir, ".jsonl", since)
    const transcripts = []
    for (const file of files) {
      const text = yield* readText(fs, file, problems)
      if (text === undefined) continue
      const parsed = parse(file, text, since)
      transcripts.push(...parsed.transcripts)
      problems.push(...parsed.problems)
    }
    return { files: files.length, parsed: { transcripts, problems } satisfies ParsedTranscripts }
  })

/** OpenCode: `message/<session>/*.json` with their `part/<message>/*.json`, and the session file when present. */
const readOpenCode = (root: string, since: number | undefined) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const problems: Array<TranscriptProblem> = []
    const storage = (yield* isDirectory(fs, path.join(root, "storage"))) ? path.join(root, "storage") : root
    const list = (dir: string) => Effect.map(Effect.orElseSucceed(fs.readDirectory(dir), () => [] as Array<string>), (names) => names.sort())
    const read = (file: string) => Effect.map(readText(fs, file, problems), (text): JsonFile | undefined => (text === undefined ? undefined : { file, text }))
    const sessionFiles = yield* filesUnder(fs, path.join(storage, "session"), ".json", undefined)
    const sessions: Array<OpenCodeSessionFiles> = []
    let files = 0
    for (const sessionId of yield* list(path.join(storage, "message"))) {
      const messages = []
      for (const name of (yield* list(path.join(storage, "message", sessionId))).filter((n) => n.endsWith(".json"))) {
        const message = yield* read(path.join(storage, "message", sessionId, name))
        if (message === undefined) continue
        const partDir = path.join(storage, "part", name.replace(/\.json$/, ""))
        const parts: Array<JsonFile> = []
        for (const p of (yield* list(partDir)).filter((n) => n.endsWith(".json"))) {
          const part = yield* read(path.join(partDir, p))
          if (part !== undefined) parts.push(part)
        }
        files += 1 + parts.length
        messages.push({ ...message, parts })
      }
      const sessionFile = sessionFiles.find((f) => path.basename(f) === `${sessionId}.json`)
      const session = sessionFile === undefined ? undefined : yield* read(sessionFile)
      sessions.push({ sessionId, messages, ...(session === undefined ? {} : { session }) })
    }
    const parsed = parseOpenCode(sessions, since)
    return { files, parsed: { transcripts: parsed.transcripts, problems: [...problems, ...parsed.problems] } satisfies ParsedTranscripts }
  })

/**
 * `akm evidence import <tool>`: reads the tool's local transcripts, extracts
 * corrections, questions and failures deterministically, redacts them and
 * stores them (spec 06 §1). A line or file that cannot be read is reported
 * by file and line and skipped; a second import of the same files adds
 * nothing.
 */
export const importTranscripts = Effect.fn("evidence.import")(function* (input: ImportTranscriptsInput) {
  const fs = yield* FileSystem
  const now = yield* Clock.currentTimeMillis
  const since = input.since === undefined ? undefined : parseSinceSpan(input.since, now)
  if (input.since !== undefined && since === undefined) {
    return yield* new UsageError({ message: `--since '${input.since}' is not a span or a date`, hint: "use e.g. --since 24h, --since 7d or --since 2026-08-01" })
  }
  if (!(yield* isDirectory(fs, input.dir))) {
    return yield* new NotFound({
      what: "directory",
      name: input.dir,
      message: `no ${input.tool} transcripts at ${input.dir}: the folder does not exist`,
      hint: `pass the folder that holds them with --dir D, e.g. akm evidence import ${input.tool} --dir /path/to/transcripts`
    })
  }
  const { files, parsed } = input.tool === "opencode"
    ? yield* readOpenCode(input.dir, since)
    : yield* readJsonl(input.dir, since, input.tool === "codex" ? parseCodex : parseClaudeCode)
  const bundles = new Set(Object.keys((yield* (yield* WorkspaceConfig).read).bundles))
  const extracted: ReadonlyArray<EvidenceInput> = parsed.transcripts.flatMap((t) => extractEvidence(input.tool, t, bundles))
  // Secrets in a transcript never reach state.db (R-RED-1).
  const clean = yield* redactInputs(extracted)
  const store = yield* EvidenceStore
  const ids = [...new Set(clean.map((e) => evidenceId(evidenceHash(e), e.independenceKey)))]
  const before = yield* store.get(ids)
  const rows = yield* store.add(clean)
  return {
    tool: input.tool,
    dir: input.dir,
    files,
    sessions: parsed.transcripts.length,
    found: ids.length,
    added: ids.length - before.length,
    rows,
    problems: parsed.problems
  } satisfies ImportTranscriptsResult as ImportTranscriptsResult
})
