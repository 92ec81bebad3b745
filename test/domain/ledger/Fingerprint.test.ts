import { describe, expect, it } from "vitest"
import { fingerprint, matchesDiscriminator, normalise, normaliseModule, slugOf } from "../../../src/domain/ledger/index.js"

// R-LED-2: one fingerprint for one failure seen with other noise; never one for two failures.

describe("failure fingerprints", () => {
  const base = { error_class: "LockTimeout", module: "src/db", operation: "migrate src/db/0042.sql:17" }

  it("the same failure with other line numbers, dates, paths, durations, addresses and hashes lands on one fingerprint", () => {
    const same = [
      { ...base, operation: "migrate src/db/0042.sql:93" },
      { ...base, operation: "migrate src\\db\\0042.sql:93:4" },
      { ...base, operation: "Migrate  src/db/0042.sql:17 " },
      { ...base, error_class: "LockTimeout after 5000ms" , operation: base.operation },
      { ...base, module: " SRC\\db/ " }
    ]
    const first = fingerprint({ ...base, error_class: "LockTimeout after 1200ms" })
    expect(fingerprint({ ...base, error_class: "LockTimeout after 30s" })).toBe(first)
    for (const fields of same.slice(0, 3)) expect(fingerprint(fields)).toBe(fingerprint(base))
    expect(fingerprint(same[4]!)).toBe(fingerprint(base))
    expect(normalise("timeout at 2026-08-14T10:00:00Z after 1500 ms, pid 48213, at 0x7ffd1234, commit 3f9a0c71e2")).toBe("timeout at <date> after <duration>, pid <num>, at <addr>, commit <hash>")
    expect(normalise("line 17, col 4")).toBe("line <n>, col <n>")
  })

  it("another error class, or the same class in another module, never collides", () => {
    expect(fingerprint({ ...base, error_class: "Deadlock" })).not.toBe(fingerprint(base))
    expect(fingerprint({ ...base, module: "src/billing" })).not.toBe(fingerprint(base))
    // Modules get no placeholders: two numbered modules stay apart.
    expect(fingerprint({ ...base, module: "src/db/2041" })).not.toBe(fingerprint({ ...base, module: "src/db/2042" }))
    expect(fingerprint({ ...base, operation: "seed users" })).not.toBe(fingerprint(base))
  })

  it("has the shape <slug(error_class)>-<12 hex>", () => {
    expect(fingerprint(base)).toMatch(/^lock-timeout-[0-9a-f]{12}$/)
    expect(slugOf("HTTPServerError")).toBe("http-server-error")
    expect(slugOf("!!!")).toBe("failure")
    expect(normaliseModule(" Src\\DB\\ ")).toBe("src/db")
  })

  it("a discriminator gives its own fingerprint (R-LED-3) and matches by substring of any field", () => {
    expect(fingerprint(base, "replica")).not.toBe(fingerprint(base))
    expect(fingerprint(base, "replica")).toMatch(/^lock-timeout-/)
    expect(matchesDiscriminator({ symptom: "timed out on the READ replica" }, "replica")).toBe(true)
    expect(matchesDiscriminator({ symptom: "timed out on the primary" }, "replica")).toBe(false)
    expect(matchesDiscriminator({ symptom: "x" }, "  ")).toBe(false)
  })
})
