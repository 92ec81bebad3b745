import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { ValidateContext } from "../../src/domain/Adapter.js"
import { redact, redactFields, trustedText, type Redacted, type RedactedFields } from "../../src/domain/Redaction.js"
import { redactReport } from "../../src/cli/exitCodes.js"
import { renderError, styleFor } from "../../src/cli/render.js"
import { recordChange, writeLedger } from "../../src/programs/ledger/write.js"
import { authorRedacted, type RedactedCreateRequest } from "../../src/programs/proposals/authorRedacted.js"
import type { LogStore } from "../../src/services/LogStore.js"
import type { StateStore } from "../../src/services/StateStore.js"
import type { UsageLog } from "../../src/services/UsageLog.js"

/**
 * R-RED-1: no write path can bypass the redactor. Each sink accepts only
 * `Redacted` text; every `@ts-expect-error` below is checked by `tsc --noEmit`
 * (npm test), which fails when a raw string starts to compile there.
 * The functions are never called: this file is about types.
 */
const raw: string = "GITHUB_TOKEN=faketoken0123456789"
const clean: Redacted = redact(raw)
const noCreate = () => Effect.succeed([])
const ctx = undefined as unknown as ValidateContext
const usage = undefined as unknown as UsageLog["Type"]
const state = undefined as unknown as StateStore["Type"]
const logs = undefined as unknown as LogStore["Type"]
const fields = redactFields({ source: raw }, (t) => redact(t))
const style = styleFor(false, {})
const report = { exit: 1, code: "not_found", message: raw, hint: raw }

const project = { name: "shop", root: "/repo" }

export const typeChecks = [
  // Ledger records (spec 08 §2.1): the file text and the proposal title.
  () => recordChange(project, ".ai/ledger/failure/x.md", null, clean),
  // @ts-expect-error raw record text
  () => recordChange(project, ".ai/ledger/failure/x.md", null, raw),
  // @ts-expect-error raw proposal title
  () => writeLedger(project, raw, []),
  () => {
    // @ts-expect-error a plain string is not Redacted
    const text: Redacted = raw
    return text
  },
  // Proposal bodies made by remember/import/create: title, description, body and fields.
  () => authorRedacted(noCreate, { title: clean, body: clean }, ctx),
  // @ts-expect-error raw body
  () => authorRedacted(noCreate, { title: clean, body: raw }, ctx),
  // @ts-expect-error raw title
  () => authorRedacted(noCreate, { title: raw, body: clean }, ctx),
  // @ts-expect-error raw description
  () => authorRedacted(noCreate, { title: clean, description: raw, body: clean }, ctx),
  // @ts-expect-error raw fields
  () => authorRedacted(noCreate, { title: clean, body: clean, fields: { note: raw } }, ctx),
  () => authorRedacted(noCreate, { title: clean, body: clean, fields: redactFields({ note: raw }, (t) => redact(t)) }, ctx),
  (): RedactedCreateRequest => ({ title: trustedText("Remember: a literal"), body: clean }),
  // @ts-expect-error RedactedFields come from redactFields only
  (): RedactedFields => ({ note: raw }),
  // Stored search queries and usage events (state.db usage_events, feedback).
  () => usage.recordSearch(clean, [], "user"),
  // @ts-expect-error raw stored query
  () => usage.recordSearch(raw, [], "user"),
  () => usage.recordFeedback({ ref: "b//x", polarity: "negative", reason: clean, tags: { area: clean }, source: "user" }),
  // @ts-expect-error raw feedback reason
  () => usage.recordFeedback({ ref: "b//x", polarity: "negative", reason: raw, source: "user" }),
  // @ts-expect-error raw feedback tag value
  () => usage.recordFeedback({ ref: "b//x", polarity: "positive", tags: { area: raw }, source: "user" }),
  // Events (state.db events): subject and data.
  () => state.appendEvent("bundle.added", clean, fields),
  // @ts-expect-error raw event subject
  () => state.appendEvent("bundle.added", raw),
  // @ts-expect-error raw event data
  () => state.appendEvent("bundle.added", clean, { source: raw }),
  // logs.db lines.
  () => logs.append("run-1", "info", clean),
  // @ts-expect-error raw log line
  () => logs.append("run-1", "info", raw),
  // CLI error rendering, text and the JSON envelope alike.
  () => renderError("json", redactReport(report), style),
  // @ts-expect-error raw error report
  () => renderError("json", report, style),
  // @ts-expect-error raw error report (text)
  () => renderError("text", report, style)
]

describe("Redacted sinks (type test)", () => {
  it("redact brands its result and changes nothing else about the string", () => {
    expect(typeof clean).toBe("string")
    expect(clean).toBe("GITHUB_TOKEN=[redacted:secret]")
    expect(typeChecks.length).toBeGreaterThan(0)
  })
})
