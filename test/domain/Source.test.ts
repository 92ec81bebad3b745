import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { BundleSource } from "../../src/domain/Config.js"
import { UsageError } from "../../src/domain/Errors.js"
import { validateBundleName } from "../../src/domain/Ref.js"
import { defaultBundleName, parseSource, sourceLocator, type SourceOptions } from "../../src/domain/Source.js"
import { shellCommand } from "../../src/domain/ShellQuote.js"

const parsed = (input: string, options?: SourceOptions): BundleSource => {
  const result = parseSource(input, options)
  if (Either.isLeft(result)) throw new Error(`expected a source for ${input}, got: ${result.left.message}`)
  return result.right
}

const refused = (input: string, options?: SourceOptions): UsageError => {
  const result = parseSource(input, options)
  if (Either.isRight(result)) throw new Error(`expected ${input} to be refused, got ${JSON.stringify(result.right)}`)
  expect(result.left).toBeInstanceOf(UsageError)
  return result.left
}

describe("parseSource (spec 02 §1)", () => {
  it.each([
    ["./kb", "./kb"],
    ["../shared/kb", "../shared/kb"],
    ["~/notes", "~/notes"],
    ["/srv/knowledge", "/srv/knowledge"],
    ["notes", "notes"],
    ["C:\\Users\\ada\\kb", "C:\\Users\\ada\\kb"],
    ["  ./padded  ", "./padded"]
  ])("a local path %j is a filesystem source used in place", (input, path) => {
    expect(parsed(input)).toEqual({ kind: "filesystem", path })
  })

  it("a local path with --git is a pinned git copy of the checkout", () => {
    expect(parsed("./repo", { git: true })).toEqual({ kind: "git", url: "./repo" })
    expect(parsed("./repo", { git: true, ref: "v1" })).toEqual({ kind: "git", url: "./repo", ref: "v1" })
  })

  it("file:// is a local git repository", () => {
    expect(parsed("file:///srv/repos/kb")).toEqual({ kind: "git", url: "file:///srv/repos/kb" })
    expect(parsed("file:///srv/repos/kb", { ref: "main" })).toEqual({ kind: "git", url: "file:///srv/repos/kb", ref: "main" })
  })

  it("an https URL is a git repository, with --ref as its ref", () => {
    expect(parsed("https://github.com/acme/kb.git")).toEqual({ kind: "git", url: "https://github.com/acme/kb.git" })
    expect(parsed("https://github.com/acme/kb.git", { ref: "v2" })).toEqual({ kind: "git", url: "https://github.com/acme/kb.git", ref: "v2" })
  })

  it("github:owner/repo[#ref] is the GitHub https repository", () => {
    expect(parsed("github:acme/kb")).toEqual({ kind: "git", url: "https://github.com/acme/kb.git" })
    expect(parsed("github:acme/kb#main")).toEqual({ kind: "git", url: "https://github.com/acme/kb.git", ref: "main" })
    expect(parsed("github:acme/kb.js#v1.2", { ref: "override" })).toEqual({ kind: "git", url: "https://github.com/acme/kb.js.git", ref: "override" })
  })

  it.each(["github:acme", "github:", "github:a/b/c", "github:acme/kb extra"])("refuses a malformed github source %j", (input) => {
    expect(refused(input).hint).toContain("github:owner/repo")
  })

  it("npm: specs carry the package and the optional version range", () => {
    expect(parsed("npm:@acme/agent-skills@^2")).toEqual({ kind: "npm", package: "@acme/agent-skills", version: "^2" })
    expect(parsed("npm:@acme/agent-skills")).toEqual({ kind: "npm", package: "@acme/agent-skills" })
    expect(parsed("npm:left-pad@1.3.0")).toEqual({ kind: "npm", package: "left-pad", version: "1.3.0" })
    expect(parsed("npm:left-pad")).toEqual({ kind: "npm", package: "left-pad" })
  })

  it("refuses an npm: spec without a package", () => {
    expect(refused("npm:").hint).toContain("npm:")
  })

  it("website: and --website make a website source", () => {
    expect(parsed("website:https://docs.example.com/")).toEqual({ kind: "website", url: "https://docs.example.com/" })
    expect(parsed("https://docs.example.com/", { website: true })).toEqual({ kind: "website", url: "https://docs.example.com/" })
  })

  it("a plain http git URL needs --allow-insecure, which is recorded in the source so updates repeat it (R-WEB-1)", () => {
    expect(refused("http://git.example.com/kb.git").hint).toContain("--allow-insecure")
    expect(parsed("http://git.example.com/kb.git", { allowInsecure: true })).toEqual({ kind: "git", url: "http://git.example.com/kb.git", allowInsecure: true })
    expect(parsed("https://git.example.com/kb.git")).toEqual({ kind: "git", url: "https://git.example.com/kb.git" })
  })

  it("--allow-insecure lets a website use plain http and is recorded in the source (R-WEB-1)", () => {
    expect(parsed("http://docs.example.com/", { website: true, allowInsecure: true })).toEqual({ kind: "website", url: "http://docs.example.com/", allowInsecure: true })
    expect(parsed("website:http://docs.example.com/", { allowInsecure: true })).toEqual({ kind: "website", url: "http://docs.example.com/", allowInsecure: true })
    expect(refused("http://docs.example.com/", { website: true }).hint).toContain("--allow-insecure")
    expect(refused("website:http://docs.example.com/").hint).toContain("--allow-insecure")
  })

  it("refuses website URLs with credentials, without a scheme, or that do not parse", () => {
    expect(refused("https://ada:secret@docs.example.com/", { website: true }).message).toContain("credentials")
    expect(refused("website:docs.example.com").message).toContain("http(s) URL")
    expect(refused("website:https://exa mple.com/").message).toContain("not a valid URL")
  })

  it.each<[string, SourceOptions, string]>([
    ["./kb", { ref: "main" }, "--git"],
    ["npm:left-pad", { ref: "main" }, "drop --ref"],
    ["./kb", { allowInsecure: true }, "--website"],
    ["https://github.com/acme/kb.git", { allowInsecure: true }, "--website"],
    ["npm:left-pad", { git: true }, "drop --git"],
    ["./kb", { website: true }, "https://"],
    ["https://docs.example.com/", { website: true, git: true }, "give one of them"]
  ])("refuses %j with a flag that does not apply (%j)", (input, options, hint) => {
    expect(refused(input, options).hint).toContain(hint)
  })

  it.each(["notes//guide", "skills//pdf-processing", "notes//guide#authentication"])("refuses the item ref %j, pointing to akm show", (input) => {
    const error = refused(input)
    expect(error.message).toContain("item ref")
    expect(error.hint).toContain(shellCommand("akm show", input))
  })

  it.each(["git@github.com:acme/kb.git", "ssh://git@github.com/acme/kb.git"])("refuses the ssh URL %j with a hint to use https", (input) => {
    const error = refused(input)
    expect(error.message).toContain("ssh")
    expect(error.hint).toContain("https://")
  })

  it.each(["ftp://example.com/kb", "s3://bucket/kb", "svn+ssh://host/repo"])("refuses the unknown scheme %j", (input) => {
    const error = refused(input)
    expect(error.message).toContain(input)
    expect(error.hint).toMatch(/https:\/\/.*npm:/)
  })

  it.each(["", "   "])("refuses an empty source %j", (input) => {
    expect(refused(input).message).toContain("empty")
  })
})

describe("sourceLocator", () => {
  it("names each kind of source the way a user would type it", () => {
    expect(sourceLocator({ kind: "filesystem", path: "~/notes" })).toBe("~/notes")
    expect(sourceLocator({ kind: "git", url: "https://x/kb.git", ref: "main" })).toBe("https://x/kb.git#main")
    expect(sourceLocator({ kind: "git", url: "https://x/kb.git" })).toBe("https://x/kb.git")
    expect(sourceLocator({ kind: "npm", package: "@acme/skills", version: "^2" })).toBe("npm:@acme/skills@^2")
    expect(sourceLocator({ kind: "website", url: "https://docs.example.com/" })).toBe("https://docs.example.com/")
  })

  it("round-trips through parseSource for npm and git sources", () => {
    for (const source of [
      { kind: "npm", package: "@acme/skills", version: "^2" },
      { kind: "npm", package: "left-pad" },
      { kind: "git", url: "https://github.com/acme/kb.git" }
    ] as const) {
      expect(parsed(sourceLocator(source))).toEqual(source)
    }
  })
})

describe("defaultBundleName", () => {
  it.each<[BundleSource, string]>([
    [{ kind: "filesystem", path: "/home/ada/notes" }, "notes"],
    [{ kind: "filesystem", path: "~/src/my kb/" }, "my-kb"],
    [{ kind: "filesystem", path: "C:\\Users\\ada\\team.notes" }, "team-notes"],
    [{ kind: "git", url: "https://github.com/acme/kb.git" }, "kb"],
    [{ kind: "git", url: "https://github.com/acme/kb/" }, "kb"],
    [{ kind: "npm", package: "@acme/agent-skills" }, "agent-skills"],
    [{ kind: "npm", package: "left-pad" }, "left-pad"],
    [{ kind: "website", url: "https://docs.example.com/guide/" }, "docs-example-com"]
  ])("names %j %j", (source, name) => {
    expect(defaultBundleName(source)).toBe(name)
  })

  it("falls back to 'bundle' when nothing usable is left", () => {
    expect(defaultBundleName({ kind: "filesystem", path: "/" })).toBe("bundle")
    expect(defaultBundleName({ kind: "filesystem", path: "..." })).toBe("bundle")
  })

  it("always yields a valid bundle name", () => {
    const pathChar = fc.constantFrom("a", "Z", "0", "-", "_", ".", ":", "#", " ", "\t", "/", "\\", "~", "@", "é", "日", "🙂")
    fc.assert(
      fc.property(fc.string({ unit: pathChar, maxLength: 120 }), (path) => {
        expect(Either.isRight(validateBundleName(defaultBundleName({ kind: "filesystem", path })))).toBe(true)
      })
    )
  })
})

describe("parseSource: credentials", () => {
  it("refuses a git URL carrying user:token@, so no secret reaches config.yaml or the lock", () => {
    const parsed = parseSource("https://user:secret-token@example.com/team/kb.git")
    expect(Either.isLeft(parsed)).toBe(true)
    if (Either.isLeft(parsed)) expect(parsed.left.message).not.toContain("secret-token")
  })
})
