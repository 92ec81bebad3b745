import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { ValidateContext } from "../../src/domain/Adapter.js"
import { redact, redactFields, trustedText, type Redacted, type RedactedFields } from "../../src/domain/Redaction.js"
import { authorRedacted, type RedactedCreateRequest } from "../../src/programs/proposals/authorRedacted.js"

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

export const typeChecks = [
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
  (): RedactedFields => ({ note: raw })
]

describe("Redacted sinks (type test)", () => {
  it("redact brands its result and changes nothing else about the string", () => {
    expect(typeof clean).toBe("string")
    expect(clean).toBe("GITHUB_TOKEN=[redacted:secret]")
    expect(typeChecks.length).toBeGreaterThan(0)
  })
})
