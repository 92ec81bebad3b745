import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { AkmConfig, type BundleConfig, configProblems, intervalMillis, isWritable } from "../../src/domain/Config.js"

const decode = Schema.decodeUnknownEither(AkmConfig, { onExcessProperty: "error" })

/** The example config of spec 01 §2, as YAML would load it. */
const specExample = {
  defaultBundle: "notes",
  bundles: {
    notes: { source: { kind: "filesystem", path: "~/notes" }, adapter: "okf", writable: true },
    team: { source: { kind: "git", url: "https://github.com/acme/kb.git", ref: "main" }, writable: false, refresh: "12h" },
    mine: { source: { kind: "filesystem", path: "~/src/kb" }, adapter: "akm", writable: true, git: { commit: true } },
    skills: { source: { kind: "npm", package: "@acme/agent-skills", version: "^2" } },
    docs: { source: { kind: "website", url: "https://docs.example.com/", maxPages: 50, maxDepth: 3 }, refresh: "12h" },
    project: { source: { kind: "filesystem", path: "~/src/app" }, adapter: "project", writable: true }
  },
  search: { limit: 20 },
  improve: { generator: { kind: "openai-compatible", baseUrl: "http://localhost:11434/v1", model: "qwen3" } },
  memory: { highWaterItems: 1000, lowWaterItems: 800 },
  policy: { autoApply: ["mechanical"] }
}

describe("AkmConfig", () => {
  it("accepts the spec's example config, with no cross-field problems", () => {
    const config = decode(specExample)
    expect(Either.isRight(config)).toBe(true)
    if (Either.isRight(config)) expect(configProblems(config.right)).toEqual([])
  })

  it("an empty file is the empty config", () => {
    expect(decode({})).toEqual(Either.right({ bundles: {} }))
  })

  it.each([
    ["an unknown top-level key", { bundels: {} }],
    ["an unknown bundle key", { bundles: { x: { source: { kind: "filesystem", path: "/x" }, writeable: true } } }],
    ["an unknown source kind", { bundles: { x: { source: { kind: "svn", url: "x" } } } }],
    ["an invalid bundle name", { bundles: { "bad.name": { source: { kind: "filesystem", path: "/x" } } } }],
    ["a search limit of 0", { search: { limit: 0 } }],
    ["a refresh that is not an interval", { bundles: { x: { source: { kind: "git", url: "https://x" }, refresh: "hourly" } } }],
    ["an empty filesystem path", { bundles: { x: { source: { kind: "filesystem", path: "" } } } }]
  ])("refuses %s", (_, input) => {
    expect(Either.isLeft(decode(input))).toBe(true)
  })
})

describe("configProblems", () => {
  const config = (input: unknown) => Either.getOrThrow(decode(input))

  it("names a defaultBundle that is not configured", () => {
    expect(configProblems(config({ defaultBundle: "notes", bundles: {} }))).toEqual([
      { path: "defaultBundle", reason: expect.stringContaining("'notes'") }
    ])
  })

  it.each(["npm", "website"] as const)("refuses writable: true on a %s source (R-WS-6)", (kind) => {
    const source = kind === "npm" ? { kind, package: "x" } : { kind, url: "https://docs.example.com/" }
    expect(configProblems(config({ bundles: { ro: { source, writable: true } } }))).toEqual([
      { path: "bundles.ro.writable", reason: expect.stringContaining(kind) }
    ])
    expect(configProblems(config({ bundles: { ro: { source, writable: false } } }))).toEqual([])
  })

  it("allows writable: true on filesystem and git sources", () => {
    expect(configProblems(config({
      bundles: {
        fs: { source: { kind: "filesystem", path: "/x" }, writable: true },
        git: { source: { kind: "git", url: "https://x/kb.git" }, writable: true }
      }
    }))).toEqual([])
  })
})

describe("isWritable", () => {
  const bundle = (source: BundleConfig["source"], writable?: boolean): BundleConfig => (writable === undefined ? { source } : { source, writable })

  it("a filesystem bundle is writable unless it says otherwise", () => {
    expect(isWritable(bundle({ kind: "filesystem", path: "/x" }))).toBe(true)
    expect(isWritable(bundle({ kind: "filesystem", path: "/x" }, false))).toBe(false)
  })

  it("every other kind is read-only unless it says otherwise", () => {
    expect(isWritable(bundle({ kind: "git", url: "https://x" }))).toBe(false)
    expect(isWritable(bundle({ kind: "git", url: "https://x" }, true))).toBe(true)
    expect(isWritable(bundle({ kind: "npm", package: "x" }))).toBe(false)
    expect(isWritable(bundle({ kind: "website", url: "https://x" }))).toBe(false)
  })
})

describe("intervalMillis", () => {
  it.each([
    ["45s", 45_000],
    ["30m", 1_800_000],
    ["12h", 43_200_000],
    ["7d", 604_800_000],
    ["2w", 1_209_600_000],
    ["0m", 0]
  ])("%s is %d ms", (interval, millis) => {
    expect(intervalMillis(interval)).toBe(millis)
  })

  it.each(["", "12", "h", "1.5h", "-1h", "12H", "12 h", "3y"])("%j is not an interval", (interval) => {
    expect(intervalMillis(interval)).toBeNaN()
  })
})
