import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { AkmConfig, configProblems } from "../../src/domain/Config.js"
import { MEMORY_DEFAULTS, memoryPolicy, memoryPressure, tierState } from "../../src/domain/MemoryPolicy.js"
import { parseConfigText } from "../../src/layers/fs/WorkspaceConfigFile.js"

// The `memory` section of config.yaml (spec 01 §2, spec 06 §8.2): typed, validated, with the spec's defaults.

const decode = Schema.decodeUnknownEither(AkmConfig, { onExcessProperty: "error" })
const FILE = "/cfg/config.yaml"

/** The error parseConfigText gives for a config text, as the CLI prints it after the file name. */
const refusal = (text: string) => {
  const parsed = parseConfigText(FILE, text)
  if (Either.isRight(parsed)) throw new Error(`accepted: ${text}`)
  return parsed.left
}

/** The numbers plus the two switches: background intake queues, semantic retirement is off (R-MEM-2, R-MEM-4). */
const POLICY_DEFAULTS = { ...MEMORY_DEFAULTS, backgroundIntakeWhenBlocked: "queue", semanticRetirement: false }

describe("memory policy (spec 06 §8.2)", () => {
  it("backgroundIntakeWhenBlocked and semanticRetirement are read and checked", () => {
    const set = Either.getOrThrow(decode({ memory: { backgroundIntakeWhenBlocked: "write", semanticRetirement: true } }))
    expect(memoryPolicy(set.memory)).toMatchObject({ backgroundIntakeWhenBlocked: "write", semanticRetirement: true })
    expect(Either.isLeft(decode({ memory: { backgroundIntakeWhenBlocked: "drop" } }))).toBe(true)
    expect(Either.isLeft(decode({ memory: { semanticRetirement: "yes" } }))).toBe(true)
  })

  it("a tier's state: ok, over-high when a pass reaches low water, reducing while a proposal waits, else blocked", () => {
    const policy = memoryPolicy({ highWaterItems: 100, lowWaterItems: 60 })
    expect(tierState(policy, { items: 100, bytes: 1 }, { items: 100, bytes: 1 }, false)).toBe("ok")
    expect(tierState(policy, { items: 120, bytes: 1 }, { items: 50, bytes: 1 }, false)).toBe("over-high")
    expect(tierState(policy, { items: 120, bytes: 1 }, { items: 50, bytes: 1 }, true)).toBe("reducing")
    expect(tierState(policy, { items: 120, bytes: 1 }, { items: 90, bytes: 1 }, false)).toBe("blocked")
  })

  it("the defaults are the spec's, from one place", () => {
    expect(MEMORY_DEFAULTS).toEqual({
      highWaterItems: 1000,
      lowWaterItems: 800,
      highWaterBytes: 52_428_800,
      retireGraceDays: 30,
      archiveRetentionDays: 180,
      archiveMaxBytes: 1_073_741_824
    })
    expect(memoryPolicy(undefined)).toEqual(POLICY_DEFAULTS)
    expect(memoryPolicy({})).toEqual(POLICY_DEFAULTS)
  })

  it("accepts the spec's full example, and what it sets is in force", () => {
    const text = "memory: { highWaterItems: 1000, lowWaterItems: 800, highWaterBytes: 52428800, retireGraceDays: 30, archiveRetentionDays: 180, archiveMaxBytes: 1073741824 }\n"
    const parsed = parseConfigText(FILE, text)
    expect(Either.isRight(parsed)).toBe(true)
    if (Either.isRight(parsed)) expect(memoryPolicy(parsed.right.config.memory)).toEqual(POLICY_DEFAULTS)
    const custom = Either.getOrThrow(decode({ memory: { highWaterItems: 50, lowWaterItems: 10, highWaterBytes: 4096, archiveMaxBytes: 1 } }))
    expect(memoryPolicy(custom.memory)).toEqual({ ...POLICY_DEFAULTS, highWaterItems: 50, lowWaterItems: 10, highWaterBytes: 4096, archiveMaxBytes: 1 })
  })

  it("an unset lowWaterItems follows a set highWaterItems (80%, as 800 of 1000)", () => {
    expect(memoryPolicy({ highWaterItems: 200 }).lowWaterItems).toBe(160)
    expect(memoryPolicy({ highWaterItems: 5 }).lowWaterItems).toBe(4)
    expect(configProblems(Either.getOrThrow(decode({ memory: { highWaterItems: 5 } })))).toEqual([])
  })

  it("unknown keys inside memory are tolerated (later releases add keys)", () => {
    const config = Either.getOrThrow(decode({ memory: { highWaterItems: 10, lowWaterItems: 5, backgroundIntakeWhenBlocked: "queue" } }))
    expect(config.memory).toEqual({ highWaterItems: 10, lowWaterItems: 5, backgroundIntakeWhenBlocked: "queue" })
    expect(configProblems(config)).toEqual([])
  })

  it.each([
    ["highWaterItems", "0"],
    ["lowWaterItems", "-3"],
    ["highWaterBytes", "1.5"],
    ["retireGraceDays", "thirty"],
    ["archiveRetentionDays", "0"],
    ["archiveMaxBytes", "'1024'"],
    ["highWaterItems", "null"]
  ])("refuses memory.%s: %s, naming the key and its line (exit 78)", (key, value) => {
    const error = refusal(`# limits\nmemory:\n  ${key}: ${value}\n`)
    expect(error._tag).toBe("ConfigInvalid")
    expect(error.path).toBe(`memory.${key} (line 3)`)
    expect(error.reason).toMatch(/^must be a whole number above 0, actual /)
    expect(error.message).toContain(`at memory.${key} (line 3): must be a whole number above 0`)
  })

  it("refuses lowWaterItems at or above highWaterItems, against the default when only low is set", () => {
    const both = refusal("memory:\n  highWaterItems: 10\n  lowWaterItems: 10\n")
    expect(both.path).toBe("memory.lowWaterItems (line 3)")
    expect(both.reason).toContain("must be below memory.highWaterItems (10), actual 10")
    const lowOnly = refusal("memory: { lowWaterItems: 1500 }\n")
    expect(lowOnly.path).toBe("memory.lowWaterItems (line 1)")
    expect(lowOnly.reason).toContain("(1000, the default), actual 1500")
    expect(Either.isRight(parseConfigText(FILE, "memory: { lowWaterItems: 999 }\n"))).toBe(true)
  })

  it("pressure is high once items or bytes are past a high water mark, not at it", () => {
    const policy = memoryPolicy({ highWaterItems: 3, lowWaterItems: 2, highWaterBytes: 100 })
    expect(memoryPressure(policy, { items: 3, bytes: 100 })).toBe("ok")
    expect(memoryPressure(policy, { items: 4, bytes: 10 })).toBe("high")
    expect(memoryPressure(policy, { items: 1, bytes: 101 })).toBe("high")
  })
})
