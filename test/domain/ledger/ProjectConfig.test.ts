import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseFieldFlags, parseProjectConfig, STARTER_PROJECT_CONFIG } from "../../../src/domain/ledger/index.js"

describe(".ai/config.json", () => {
  it("the starter config decodes with defaults and no warnings", () => {
    const parsed = parseProjectConfig(JSON.stringify(STARTER_PROJECT_CONFIG))
    expect(Either.isRight(parsed) && parsed.right).toMatchObject({ config: { briefTier: "standard", interruptBudget: 5, sensitive: { allow: [] } }, warnings: [] })
    expect(Either.isRight(parseProjectConfig("{}"))).toBe(true)
  })

  it("unknown keys are warnings; wrong types are errors naming the key", () => {
    const warned = parseProjectConfig(JSON.stringify({ colour: 1, sensitive: { allow: ["x"], deny: [] }, routers: { extraTargets: ["zed", { id: "w", path: "W.md", maxBytes: 100 }] } }))
    expect(Either.isRight(warned) && warned.right.warnings).toEqual(["unknown key 'colour' in .ai/config.json (ignored)", "unknown key 'sensitive.deny' in .ai/config.json (ignored)"])
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ briefTier: "huge" }, "briefTier"],
      [{ interruptBudget: -1 }, "interruptBudget"],
      [{ sensitive: { allow: [1] } }, "sensitive.allow.0"],
      [{ routers: { extraTargets: ["vim"] } }, "routers.extraTargets.0"],
      [{ routers: { extraTargets: [{ id: "x" }] } }, "routers.extraTargets.0"]
    ]
    for (const [data, key] of cases) {
      const parsed = parseProjectConfig(JSON.stringify(data))
      expect(Either.isLeft(parsed) && parsed.left.key, JSON.stringify(data)).toContain(key)
    }
    expect(Either.isLeft(parseProjectConfig("{nope"))).toBe(true)
    expect(Either.isLeft(parseProjectConfig("[]"))).toBe(true)
  })
})

describe("--field flags", () => {
  it("key=value, a repeated key is a list, the first = splits, - is _", () => {
    const parsed = parseFieldFlags(["module=src/db", "alternatives=A", "alternatives=B", "fix=a=b", "root-cause=c"])
    expect(Either.isRight(parsed) && parsed.right).toEqual({ module: "src/db", alternatives: ["A", "B"], fix: "a=b", root_cause: "c" })
  })

  it("a flag without = or with a bad key is a usage error", () => {
    const missing = parseFieldFlags(["module"])
    expect(Either.isLeft(missing) && missing.left._tag).toBe("UsageError")
    expect(Either.isLeft(parseFieldFlags(["9x=1"]))).toBe(true)
    expect(Either.isLeft(parseFieldFlags(["=1"]))).toBe(true)
  })
})
