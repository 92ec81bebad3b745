import { describe, expect, it } from "vitest"
import { parseClaudeCode } from "../../src/domain/transcripts/claudeCode.js"
import { parseCodex } from "../../src/domain/transcripts/codex.js"
import { extractEvidence, isCorrection, questionOf, refsIn } from "../../src/domain/transcripts/extract.js"
import { parseSinceSpan } from "../../src/domain/transcripts/since.js"
import { defaultTranscriptDir, type Turn } from "../../src/domain/transcripts/Transcript.js"

const turn = (role: Turn["role"], text: string, extra: Partial<Turn> = {}): Turn => ({ role, text, origin: `t.jsonl:${role}`, ...extra })

describe("transcript extraction (spec 06 §1, decision 0016)", () => {
  it("corrections: by their opening or a short list of phrases, not by any 'no' inside a sentence", () => {
    for (const text of ["No, use the vault", "nope", "Wrong file.", "Actually, it's port 8080", "don't push to main", "Do not restart it", "stop", "That's wrong: it is v2", "this is not what I asked", "use pnpm instead", "you forgot the migration"]) {
      expect(isCorrection(text), text).toBe(true)
    }
    for (const text of ["Now add a test", "Is there no cache?", "Notice the header", "great, thanks", "Know anything about Rust?"]) {
      expect(isCorrection(text), text).toBe(false)
    }
  })

  it("questions: a first line ending in '?' with three words or more", () => {
    expect(questionOf("How do I rotate the key?\nIt expires tomorrow.")).toBe("How do I rotate the key?")
    expect(questionOf("ok?")).toBeUndefined()
    expect(questionOf("Why?")).toBeUndefined()
    expect(questionOf("Rotate the key.\nWhy does it fail?")).toBeUndefined()
  })

  it("refs: `bundle//id` of configured bundles only; URLs and unknown bundles are not refs", () => {
    const bundles = new Set(["notes", "ops"])
    expect(refsIn("see akm show notes//deploy/guide. Also ops//runbook and notes//deploy/guide", bundles)).toEqual(["notes//deploy/guide", "ops//runbook"])
    expect(refsIn("https://notes//x and file://ops//y and other//z", bundles)).toEqual([])
  })

  it("a correction needs something to correct; a question needs an answer; failures need an error; one session, one key", () => {
    const rows = extractEvidence("codex", {
      sessionId: "s1",
      turns: [
        turn("user", "No, start over"),
        turn("user", "How do I deploy to staging?"),
        turn("call", "shell npm run deploy"),
        turn("result", "exit 1: denied", { failed: true, tool: "shell" }),
        turn("result", "ok", { failed: false }),
        turn("assistant", "Run akm show notes//deploy first."),
        turn("user", "No, the vault holds the token."),
        turn("user", "Which flag sets the region?")
      ]
    }, new Set(["notes"]))
    expect(rows.map((r) => [r.kind, r.ref, r.origin])).toEqual([
      ["question", "notes//deploy", "t.jsonl:user"],
      ["failed-run", undefined, "t.jsonl:result"],
      ["session", "notes//deploy", "t.jsonl:user"]
    ])
    expect(new Set(rows.map((r) => r.independenceKey))).toEqual(new Set(["codex:s1"]))
    expect(rows[1]!.note).toBe("shell failed: exit 1: denied")
  })

  it("parsers keep going past a bad line and name it; Codex exit codes come from metadata or the text", () => {
    const claude = parseClaudeCode("a.jsonl", ["{\"type\":\"user\",\"sessionId\":\"s\",\"message\":{\"role\":\"user\",\"content\":\"hi there you\"}}", "{oops", "[1,2]", "{\"type\":\"assistant\",\"sessionId\":\"s\"}"].join("\n"))
    expect(claude.problems.map((p) => p.line)).toEqual([2, 3, 4])
    expect(claude.transcripts[0]!.turns).toHaveLength(1)
    const codex = parseCodex("rollout-2026-11-30T11-00-00-abc.jsonl", [
      JSON.stringify({ type: "response_item", payload: { type: "function_call", name: "shell", arguments: "{}", call_id: "c" } }),
      JSON.stringify({ type: "response_item", payload: { type: "function_call_output", call_id: "c", output: "Exit code: 2\nWall time: 1s\nOutput:\nnope" } }),
      JSON.stringify({ type: "response_item", payload: { type: "function_call_output", call_id: "c", output: JSON.stringify({ output: "fine", metadata: { exit_code: 0 } }) } })
    ].join("\n"))
    expect(codex.transcripts[0]!.sessionId).toBe("abc")
    expect(codex.transcripts[0]!.turns.map((t) => [t.role, t.failed, t.tool])).toEqual([["call", undefined, "shell"], ["result", true, "shell"], ["result", false, "shell"]])
  })

  it("--since spans and dates; default folders from the environment, else the home directory", () => {
    const now = Date.parse("2026-12-01T12:00:00Z")
    expect(parseSinceSpan("24h", now)).toBe(Date.parse("2026-11-30T12:00:00Z"))
    expect(parseSinceSpan("30m", now)).toBe(now - 30 * 60_000)
    expect(parseSinceSpan("2w", now)).toBe(now - 14 * 86_400_000)
    expect(parseSinceSpan("2026-11-01", now)).toBe(Date.parse("2026-11-01T00:00:00Z"))
    expect(parseSinceSpan("yesterday", now)).toBeUndefined()
    expect(defaultTranscriptDir("claude-code", {}, "/h")).toBe("/h/.claude/projects")
    expect(defaultTranscriptDir("codex", { CODEX_HOME: "/c" }, "/h")).toBe("/c/sessions")
    expect(defaultTranscriptDir("opencode", { XDG_DATA_HOME: " " }, "/h")).toBe("/h/.local/share/opencode/storage")
  })
})
