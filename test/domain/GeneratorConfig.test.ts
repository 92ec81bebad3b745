import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { configProblems, AkmConfig } from "../../src/domain/Config.js"
import { defaultKeyChain, generatorConfigProblems, generatorSettings, parseGeneratorSection } from "../../src/domain/GeneratorConfig.js"
import { Schema } from "effect"

/** config.yaml improve.generator (spec 01 §2, §6; spec 06 §5). */
describe("improve.generator config", () => {
  const problems = (generator: unknown, allowHosts: ReadonlyArray<string> = []) => generatorConfigProblems({ generator }, allowHosts)

  it("accepts each kind with its required keys", () => {
    expect(problems({ kind: "openai-compatible", baseUrl: "http://localhost:11434/v1", model: "qwen3" })).toEqual([])
    expect(problems({ kind: "anthropic", model: "claude-sonnet-4-5", apiKey: "secret:keys:anthropic" })).toEqual([])
    expect(problems({ kind: "agent" })).toEqual([])
    expect(problems({ kind: "none" })).toEqual([])
    expect(generatorConfigProblems(undefined)).toEqual([])
  })

  it("refuses a literal key, naming the path and what to write instead", () => {
    const [problem] = problems({ kind: "openai-compatible", model: "m", apiKey: "sk-proj-abcdef1234567890" })
    expect(problem?.path).toBe("improve.generator.apiKey")
    expect(problem?.reason).toContain("env:VAR or secret:<ref>")
    expect(problem?.reason).not.toContain("sk-proj")
  })

  it("refuses an unknown kind, an unknown key and a model-less provider", () => {
    expect(problems({ kind: "gpt" })[0]?.path).toBe("improve.generator.kind")
    expect(problems({ kind: "agent", modle: "x" })[0]?.path).toBe("improve.generator.modle")
    expect(problems({ kind: "openai-compatible" })[0]).toMatchObject({ path: "improve.generator.model" })
    expect(problems({ kind: "agent", timeoutMs: -1 })[0]?.path).toBe("improve.generator.timeoutMs")
  })

  it("plain http only to this machine or a host in website.allowHosts", () => {
    for (const url of ["http://127.0.0.1:11434/v1", "http://localhost:8080/v1", "http://[::1]:8000/v1", "https://api.openai.com/v1"]) {
      expect(problems({ kind: "openai-compatible", baseUrl: url, model: "m" })).toEqual([])
    }
    const [remote] = problems({ kind: "openai-compatible", baseUrl: "http://gpu-box.lan:8000/v1", model: "m" })
    expect(remote?.path).toBe("improve.generator.baseUrl")
    expect(remote?.reason).toContain("website.allowHosts")
    expect(problems({ kind: "openai-compatible", baseUrl: "http://gpu-box.lan:8000/v1", model: "m" }, ["gpu-box.lan"])).toEqual([])
    expect(problems({ kind: "openai-compatible", baseUrl: "ftp://x/v1", model: "m" })[0]?.path).toBe("improve.generator.baseUrl")
    expect(problems({ kind: "openai-compatible", baseUrl: "https://user:pw@host/v1", model: "m" })[0]?.path).toBe("improve.generator.baseUrl")
  })

  it("is part of config validation (an invalid section makes config.yaml invalid)", () => {
    const config = Schema.decodeUnknownSync(AkmConfig)({ improve: { generator: { kind: "openai-compatible", model: "m", apiKey: "literal-key" } } })
    expect(configProblems(config)[0]?.path).toBe("improve.generator.apiKey")
  })

  it("defaults: no section is kind none; the key chain is AKM_GENERATOR_API_KEY then the provider's own", () => {
    expect(generatorSettings(undefined).kind).toBe("none")
    expect(defaultKeyChain("openai-compatible")).toEqual(["env:AKM_GENERATOR_API_KEY", "env:OPENAI_API_KEY"])
    expect(defaultKeyChain("anthropic")).toEqual(["env:AKM_GENERATOR_API_KEY", "env:ANTHROPIC_API_KEY"])
    const section = Either.getOrThrow(parseGeneratorSection({ generator: { kind: "anthropic", model: "m" } }))
    expect(generatorSettings(section)).toMatchObject({ baseUrl: "https://api.anthropic.com", apiKeys: defaultKeyChain("anthropic") })
    const v1 = Either.getOrThrow(parseGeneratorSection({ generator: { kind: "anthropic", model: "m", baseUrl: "https://api.anthropic.com/v1/" } }))
    expect(generatorSettings(v1).baseUrl).toBe("https://api.anthropic.com")
    const explicit = Either.getOrThrow(parseGeneratorSection({ generator: { kind: "openai-compatible", model: "m", baseUrl: "http://127.0.0.1:1/v1/", apiKey: "env:MY_KEY" } }))
    expect(generatorSettings(explicit)).toMatchObject({ baseUrl: "http://127.0.0.1:1/v1", apiKeys: ["env:MY_KEY"] })
  })
})
