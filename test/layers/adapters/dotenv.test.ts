import { fileURLToPath } from "node:url"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { isDangerousEnvKey } from "../../../src/domain/DangerousEnvKeys.js"
import { parseEnvFile } from "../../../src/layers/adapters/dotenv/envFile.js"
import { dotenvAdapter, makeDotenvAdapter } from "../../../src/layers/adapters/dotenv/index.js"
import { dotenvRules } from "../../../src/layers/adapters/dotenv/rules.js"
import { builtInRegistry, selectAdapter } from "../../../src/layers/adapters/registry.js"
import { codes, contextFromTree, probeContextFromTree, scanDir, scanTree, treeFromDir, type Tree } from "../../support/adapterHarness.js"

const fixtures = fileURLToPath(new URL("../../fixtures/adapters/", import.meta.url))
const fixture = `${fixtures}dotenv`
const CANARY = "CANARY_51c0ffee77_NEVER_INDEX"

const probe = (tree: Tree): boolean => Effect.runSync(dotenvAdapter.probe(probeContextFromTree(tree)))

describe("dotenv adapter: golden root", () => {
  const scan = scanDir(dotenvAdapter, fixture)

  it("indexes env files by key names and secrets by file name; markers hide items", () => {
    expect(scan.items.map((i) => [i.conceptId, i.projection.type, i.projection.name])).toEqual([
      ["env/app", "env", "app"],
      ["env/ci", "env", "ci"],
      ["env/services/payments", "env", "payments"],
      ["secrets/deploy-key", "secret", "deploy-key"],
      ["secrets/npm-token", "secret", "npm-token"]
    ])
  })

  it("projects key names and only the descriptions marked # akm:public", () => {
    const app = scan.items.find((i) => i.conceptId === "env/app")!.projection
    expect(app.description).toBe("Local development settings for the web app")
    expect(app.hints).toEqual(["PORT", "LOG_LEVEL", "SESSION_SECRET", "MULTILINE_NOTE", "FEATURE_FLAGS"])
    expect(app.extra).toEqual({
      keys: [
        { name: "PORT", description: "Port the dev server listens on" },
        { name: "LOG_LEVEL", description: "Log level: debug, info, warn or error" },
        { name: "SESSION_SECRET" },
        { name: "MULTILINE_NOTE" },
        { name: "FEATURE_FLAGS" }
      ]
    })
    expect(JSON.stringify(app)).not.toContain("rotate monthly")
    expect(JSON.stringify(app)).not.toContain("FAKE_KEY")
  })

  it("a secret is its file name only", () => {
    expect(scan.items.find((i) => i.conceptId === "secrets/npm-token")!.projection).toEqual({ name: "npm-token", type: "secret" })
  })

  it("never puts a value into a projection or a diagnostic (R-RT-7)", () => {
    expect(JSON.stringify(scan)).not.toContain(CANARY)
    expect(JSON.stringify(scan)).not.toContain("3000")
    expect(JSON.stringify(scan)).not.toContain("registry.example.com")
  })

  it("reports the native findings of the root", () => {
    expect(scan.diagnostics.map((d) => [d.code, d.severity, d.path, d.line])).toEqual([
      ["duplicate-env-key", "warning", "env/ci.env", 3],
      ["dangerous-env-key", "warning", "env/ci.env", 4],
      ["invalid-env-line", "warning", "env/ci.env", 5]
    ])
  })

  it("is deterministic (R-AD-2)", () => {
    expect(scanDir(dotenvAdapter, fixture)).toEqual(scan)
  })

  it("is picked by the ordered selection, and its probe stays false on other roots (R-AD-6)", () => {
    expect(probe(treeFromDir(fixture))).toBe(true)
    expect(Effect.runSync(selectAdapter(builtInRegistry, probeContextFromTree(treeFromDir(fixture)))).id).toBe("dotenv")
    expect(probe(treeFromDir(`${fixtures}akm`))).toBe(false)
    expect(probe({ "env/a.env": "A=1", "docs/x.md": "# x" })).toBe(false)
    expect(probe({ "README.md": "# only files" })).toBe(false)
    expect(probe({ "secrets/token": "x", ".git/HEAD": "ref" })).toBe(true)
  })
})

describe("dotenv: env file reading", () => {
  it("reads key names, export lines and multi-line quoted values without taking their lines for keys", () => {
    const env = parseEnvFile("export A=1\nB=\"x\nC=not a key\n\"\nD='single'\n")
    expect(env.keys.map((k) => k.name)).toEqual(["A", "B", "D"])
    expect(env.problems).toEqual([])
  })

  it("reports an unterminated quoted value and invalid lines by line number only", () => {
    const env = parseEnvFile("A=1\nthis is prose\nB=\"never closed\nC=2\n")
    expect(env.problems).toEqual([{ kind: "invalid-line", line: 2 }, { kind: "unterminated-value", line: 3, name: "B" }])
  })

  it("a public block before the first key, set off by a blank line, describes the file; CRLF and BOM are fine", () => {
    const env = parseEnvFile("\uFEFF# akm:public Payment settings\r\n\r\n# akm:public The API key\r\nKEY=x\r\n")
    expect(env.description).toBe("Payment settings")
    expect(env.keys).toEqual([{ name: "KEY", line: 4, description: "The API key" }])
  })

  it("ordinary comments are never descriptions", () => {
    expect(parseEnvFile("# The API key\nKEY=x\n").keys).toEqual([{ name: "KEY", line: 2 }])
  })

  it("knows the dangerous keys of spec 07 (exact names and prefixes)", () => {
    for (const key of ["PATH", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "NODE_OPTIONS", "BASH_FUNC_x%%", "GIT_CONFIG_COUNT", "PYTHONPATH", "_JAVA_OPTIONS", "path"]) {
      expect(isDangerousEnvKey(key), key).toBe(true)
    }
    for (const key of ["DATABASE_URL", "MY_PATH", "NODE_ENV", "GIT_AUTHOR_NAME"]) expect(isDangerousEnvKey(key), key).toBe(false)
  })

  it("a marker next to an env file or a secret hides it; the marker is never an item", () => {
    const scan = scanTree(dotenvAdapter, { "env/a.env": "A=1", "env/a.env.sensitive": "", "env/b.env": "B=1", "env/b.sensitive": "", "secrets/c": "x", "secrets/c.sensitive": "" })
    expect(scan.items).toEqual([])
  })

  it("env/<name> and env/<name>.env collide; the .env file wins", () => {
    const scan = scanTree(dotenvAdapter, { "env/a": "A=1", "env/a.env": "B=1" })
    expect(scan.items.map((i) => i.files)).toEqual([["env/a.env"]])
    expect(codes(scan.diagnostics)).toEqual(["duplicate-concept-id"])
  })
})

describe("dotenv: one rule table (R-AD-3)", () => {
  const tree = { "env/a.env": "PATH=/tmp\n" }

  it("removing a row stops enforcing it and stops teaching it", () => {
    const without = makeDotenvAdapter(dotenvRules.filter((r) => r.code !== "dangerous-env-key"))
    expect(codes(scanTree(dotenvAdapter, tree).diagnostics)).toEqual(["dangerous-env-key"])
    expect(codes(scanTree(without, tree).diagnostics)).toEqual([])
    const instructions = (adapter: typeof dotenvAdapter) => Effect.runSync(adapter.authoringContext!({ name: "t", root: "/", writable: true }, "env", "create")).instructions
    expect(instructions(dotenvAdapter)).toContain("`dangerous-env-key` (warning)")
    expect(instructions(without)).not.toContain("dangerous-env-key")
  })

  it("changing a row's severity changes the diagnostic and the instructions, and the rule hash", () => {
    const stricter = makeDotenvAdapter(dotenvRules.map((r) => (r.code === "dangerous-env-key" ? { ...r, severity: "error" as const } : r)))
    expect(scanTree(stricter, tree).diagnostics.map((d) => d.severity)).toEqual(["error"])
    const context = (adapter: typeof dotenvAdapter) => Effect.runSync(adapter.authoringContext!({ name: "t", root: "/", writable: true }, "env", "create"))
    expect(context(stricter).instructions).toContain("`dangerous-env-key` (error)")
    expect(context(stricter).ruleHash).not.toBe(context(dotenvAdapter).ruleHash)
    expect(context(dotenvAdapter).ruleHash).toBe(context(dotenvAdapter).ruleHash)
  })
})

describe("dotenv: authoring", () => {
  it("create is refused: values are written only by akm env / akm secret", () => {
    const result = Effect.runSync(Effect.either(dotenvAdapter.create!({ title: "x", body: "A=1" }, contextFromTree({}))))
    expect(Either.isLeft(result) && result.left.reason).toMatch(/akm env/)
  })
})
