import * as fc from "fast-check"
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import {
  digestValue,
  envValues,
  isAllowListed,
  looksRandom,
  redact,
  redactCapped,
  secretValues,
  valueKey,
  valueSet,
  type RedactionKind
} from "../../src/domain/Redaction.js"

const fixture = (name: string) => fs.readFileSync(new URL(`../fixtures/redaction/${name}`, import.meta.url), "utf8")

// Every secret planted in positive.txt (all fake); none may survive, in whole or as a long fragment.
const PLANTED: ReadonlyArray<readonly [RedactionKind, string]> = [
  ["private-key", "MIIEowIBAAKCAQEAfakeFAKEfake0123456789abcdefFAKEKEYxyzXYZ"],
  ["private-key", "QWERTYfakeline2fakeline2fakeline2fakeline2fakeline2fake"],
  ["private-key", "b3BlbnNzaC1rZXktdjEAAAAAfakefakefakeFAKEFAKE0000"],
  ["jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlLXVzZXIifQ.c2lnbmF0dXJlLWZha2UtZmFrZS1mYWtl"],
  ["aws-access-key", "AKIAFAKEEXAMPLE12345"],
  ["aws-access-key", "ASIAFAKEEXAMPLE67890"],
  ["aws-secret-key", "FaKe/SeCrEt+KeY0123456789abcdefGHIJKLMNO"],
  ["aws-secret-key", "fAkEsEcReTkEy/0123456789+ABCDEFGHIJKLMNO"],
  ["github-token", "ghp_FAKEfake0000TESTtest1111EXAMPLE2222xy"],
  ["github-token", "gho_FAKEfake0000TESTtest1111EXAMPLE2222zz"],
  ["github-token", "github_pat_11FAKE0000_fakeFAKEfake0123456789abcdefABCDEF"],
  ["slack-token", "xoxb-000000000000-111111111111-FaKeFaKeFaKeFaKe"],
  ["slack-webhook", "https://hooks.slack.com/services/T00000000/B00000000/FAKEfakeFAKEfake0000"],
  ["openai-key", "sk-FAKEfake0123456789abcdefFAKEfake0123"],
  ["openai-key", "sk-proj-FAKE_fake-0123456789abcdefABCDEF"],
  ["anthropic-key", "sk-ant-api03-FAKEfake0123456789-abcdefFAKEfake_0123"],
  ["google-api-key", "AIzaSyFAKE-fake_0123456789abcdefABCDEFGHIJ"],
  ["stripe-key", "sk_live_FAKEfake0123456789abcd"],
  ["stripe-key", "rk_test_FAKEfake0123456789abcd"],
  ["connection-string", "n0t-a-real-pw-42"],
  ["connection-string", "FakeRedisPass99"],
  ["bearer", "fake-token.0123456789.abcdefABCDEF"],
  ["basic-auth", "ZmFrZXVzZXI6ZmFrZXBhc3N3b3Jk"],
  ["secret", "faketoken0123456789"],
  ["secret", "correct horse fake staple 42"],
  ["secret", "fake-client-secret-0987"],
  ["secret", "fake-api-key-0123456789"],
  ["secret", "fAkE.AcCeSs.ToKeN.2024"],
  ["secret", "hunter2-fake-hunter2"],
  ["secret", "FAKEAPIKEY0123456789"],
  ["high-entropy", "Zq8vX2mLr9TkP4wYb7NcJ3hFd6Gs1QaE"],
  ["high-entropy", "9fKx2LmQ8rTz7VwNbY3cHp6JdG4sA1eU+o/Zr5Xq=="]
]

const key = valueKey(new Uint8Array(32).fill(7))
const valuesOf = (...values: ReadonlyArray<string>) => valueSet(key, values.map((v) => digestValue(key, v)))

describe("R-RED-1 redaction fixtures", () => {
  const positive = fixture("positive.txt")
  const redacted = redact(positive)

  it("the positive fixture: every planted secret is gone and every kind is named", () => {
    for (const [, secret] of PLANTED) expect(redacted, secret).not.toContain(secret)
    const kinds = new Set([...redacted.matchAll(/\[redacted:([a-z-]+)\]/g)].map((m) => m[1]))
    expect([...kinds].sort()).toEqual([...new Set(PLANTED.map(([kind]) => kind))].sort())
  })

  it.each(PLANTED.filter(([kind]) => kind !== "private-key").map(([kind, secret]) => [kind, secret, positive.split("\n").find((line) => line.includes(secret))!] as const))(
    "%s: %s becomes [redacted:%s] on its own line",
    (kind, secret, line) => {
      const out = redact(line)
      expect(out).not.toContain(secret)
      expect(out).toContain(`[redacted:${kind}]`)
    }
  )

  it("private-key blocks go whole, also when the END line is missing", () => {
    const block = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIFAKEfakeFAKE0123\nmore-fake-lines\n-----END EC PRIVATE KEY-----"
    expect(redact(`before\n${block}\nafter`)).toBe("before\n[redacted:private-key]\nafter")
    expect(redact("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANfakeFAKE\ncut off here")).toBe("[redacted:private-key]")
  })

  it("an unclosed quote does not hide the key on the next line; a keyword inside a value is not another key", () => {
    expect(redact("a_token=\"unterminated\nPASSWORD=\"real-secret-123\"")).toBe("a_token=\"unterminated\nPASSWORD=\"[redacted:secret]\"")
    expect(redact("TOKEN=token=abcdefgh12")).toBe("TOKEN=[redacted:secret]")
  })

  it("key names, schemes, users and header names are kept", () => {
    expect(redact("GITHUB_TOKEN=faketoken0123456789")).toBe("GITHUB_TOKEN=[redacted:secret]")
    expect(redact("export DB_PASSWORD=\"correct horse fake staple 42\"")).toBe("export DB_PASSWORD=\"[redacted:secret]\"")
    expect(redact("postgres://app_user:n0t-a-real-pw-42@db:5432/app")).toBe("postgres://app_user:[redacted:connection-string]@db:5432/app")
    expect(redact("Authorization: Bearer fake-token.0123456789.abcdefABCDEF")).toBe("Authorization: Bearer [redacted:bearer]")
  })

  it("a path is judged segment by segment: temp folder names pass, a random segment of 20+ characters does not", () => {
    expect(redact("/home/me/.cache/akm/sources/x/9fQ2rT7xLk3mPz8vB1nW4yH6jD0sA5eK/file.md")).toBe("/home/me/.cache/akm/sources/x/[redacted:high-entropy]/file.md")
    expect(redact("/tmp/akm-test-run-5260-gZtQeL/akm-test-7755-E4WdVC/kb")).toBe("/tmp/akm-test-run-5260-gZtQeL/akm-test-7755-E4WdVC/kb")
  })

  it("the negative-control fixture is left byte-identical", () => {
    const negative = fixture("negative.txt")
    expect(redact(negative)).toBe(negative)
    expect(redact(negative, { values: valuesOf("not-in-the-text-1234") })).toBe(negative)
  })

  it("redacting the redacted fixture changes nothing", () => {
    expect(redact(redacted)).toBe(redacted)
  })
})

describe("known values (HMAC digests)", () => {
  it("a stored value is found anywhere, also inside other text, and only values of 8+ characters count", () => {
    const values = valuesOf("planted-canary-value", "s3cr3t!x", "short")
    expect(values.size).toBe(2)
    expect(redact("token is planted-canary-value; again:planted-canary-value.", { values })).toBe("token is [redacted:env]; again:[redacted:env].")
    expect(redact("xxs3cr3t!xyy and short stays", { values })).toBe("xx[redacted:env]yy and short stays")
  })

  it("a value that is a 64-hex digest is still redacted when it was declared secret", () => {
    const hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    expect(redact(`digest ${hex}`)).toBe(`digest ${hex}`)
    expect(redact(`digest ${hex}`, { values: valuesOf(hex) })).toBe("digest [redacted:env]")
    expect(redact(`WEBHOOK_SECRET=${hex}`)).toBe("WEBHOOK_SECRET=[redacted:secret]")
  })

  it("sensitive.allow strings are never redacted, whatever matches inside them", () => {
    const allow = ["PUBLIC_TOKEN=demo-token-for-docs-1"]
    expect(redact("PUBLIC_TOKEN=demo-token-for-docs-1 and OTHER_TOKEN=real-token-value-2", { allow }))
      .toBe("PUBLIC_TOKEN=demo-token-for-docs-1 and OTHER_TOKEN=[redacted:secret]")
    expect(redact("see planted-canary-value", { values: valuesOf("planted-canary-value"), allow: ["planted-canary-value"] })).toBe("see planted-canary-value")
  })

  it("dotenv and secret files yield their values (quotes and comments removed)", () => {
    expect(envValues("# c\nA=short\nexport B=\"quoted value 1\"\nC='single-q-2'\nD=plain-value-3 # note\n  E = spaced-value-4\nnot a line\n"))
      .toEqual(["quoted value 1", "single-q-2", "plain-value-3", "spaced-value-4"])
    expect(secretValues("line-one-secret\nline-two-secret\n")).toEqual(["line-one-secret\nline-two-secret", "line-one-secret", "line-two-secret"])
    expect(secretValues("tiny\n")).toEqual([])
  })
})

describe("caps and helpers", () => {
  it("stored text is capped after redaction and a cut never splits a placeholder", () => {
    const text = `${"a".repeat(1020)} GITHUB_TOKEN=faketoken0123456789 ${"b".repeat(60_000)}`
    const capped = redactCapped(text, 1024)
    expect(capped.length).toBeLessThanOrEqual(1024)
    expect(capped).not.toContain("faketoken")
    expect(capped).not.toMatch(/\[redacted:[a-z-]*$/)
  })

  it("looksRandom tells tokens from identifiers", () => {
    expect(looksRandom("Zq8vX2mLr9TkP4wYb7NcJ3hFd6Gs1QaE")).toBe(true)
    for (const word of ["createIndexStoreFromConfigurationOptions", "withWriteLeaseAndRetry", "d41d8cd98f00b204e9800998ecf8427e", "SELECT_WINDOW_MS_LONG_NAME", "src/layers/sqlite/UsageLogSqlite"]) {
      expect(looksRandom(word), word).toBe(false)
    }
  })
})

describe("adversarial input", () => {
  // A quadratic scan takes minutes on these and hits the test timeout; a linear one takes milliseconds.
  it.each([
    ["kebab run", "a-".repeat(100_000)],
    ["dotted run", "a.".repeat(100_000)],
    ["digit run", "1".repeat(200_000)],
    ["many schemes", "a://".repeat(50_000)],
    ["many assignments", "token=".repeat(40_000)],
    ["many quoted assignments", "token=\"".repeat(40_000)],
    ["unclosed private keys", "-----BEGIN RSA PRIVATE KEY-----\n".repeat(5_000)],
    ["many bearers", "Bearer ".repeat(30_000)]
  ])("%s: redacted in one scan", (_, text) => {
    const out = redact(`GITHUB_TOKEN=faketoken0123456789 ${text}`)
    expect(out).not.toContain("faketoken0123456789")
  })
})

// --- properties (spec 10 §3) -------------------------------------------------------------------

const WORDS = ["the", "index", "search", "bundle", "staging", "runner", "deploy", "notes", "and", "of", "a", "query", "memory", "Friday", "is", "to"]
const prose = fc.array(fc.constantFrom(...WORDS), { maxLength: 30 }).map((words) => words.join(" "))
const hex = (n: number) => fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: n, maxLength: n })
const allowListedId = fc.oneof(
  fc.uuid(),
  hex(40),
  hex(64),
  fc.tuple(fc.constantFrom("typeerror", "enoent-read", "db"), hex(12)).map(([slug, h]) => `${slug}-${h}`),
  fc.base64String({ minLength: 44, maxLength: 88 }).filter((s) => s.length % 4 === 0).map((b) => `sha512-${b}`),
  fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.tuple(fc.nat(99), fc.nat(99), fc.nat(999)).map(([a, b, c]) => `${a}.${b}.${c}`),
  fc.tuple(fc.constantFrom("team", "notes", "my-bundle"), fc.constantFrom("knowledge/deploy", "skills/pdf", "memories/vpn-2")).map(([b, id]) => `${b}//${id}`)
)
const secretValue = fc.string({ unit: fc.constantFrom(..."abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_!@%"), minLength: 8, maxLength: 48 })

describe("redactor properties (fast-check)", () => {
  it("idempotent on any text", () => {
    const values = valuesOf("planted-canary-value")
    fc.assert(fc.property(fc.oneof(fc.string({ maxLength: 300 }), fc.constantFrom(...PLANTED.map(([, s]) => s)).map((s) => `x ${s} y`), fc.string({ unit: "grapheme", maxLength: 200 })), (text) => {
      const once = redact(text, { values })
      expect(redact(once, { values })).toBe(once)
    }), { numRuns: 2000 })
  })

  it("idempotent on mixes of secrets, prose and placeholders", () => {
    const piece = fc.oneof(prose, fc.constantFrom(...PLANTED.map(([, s]) => s), "TOKEN=", "Bearer ", "://u:", "@", "[redacted:env]", "\"", "'", "="))
    fc.assert(fc.property(fc.array(piece, { maxLength: 12 }), fc.constantFrom("", " ", "\n"), (pieces, sep) => {
      const text = pieces.join(sep)
      const once = redact(text)
      expect(redact(once)).toBe(once)
    }), { numRuns: 1000 })
  })

  it("allow-listed ids in prose are never touched", () => {
    fc.assert(fc.property(prose, allowListedId, prose, (before, id, after) => {
      expect(isAllowListed(id)).toBe(true)
      const text = `${before} ${id} ${after}`
      expect(redact(text)).toBe(text)
    }), { numRuns: 1000 })
  })

  it("a planted value never survives, wherever it sits", () => {
    fc.assert(fc.property(secretValue, fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), (value, before, after) => {
      const out = redact(`${before}${value}${after}`, { values: valuesOf(value) })
      expect(out).not.toContain(value)
    }), { numRuns: 1000 })
  })
})
