import { describe, expect, it } from "vitest"
import { NpmProblem } from "../../src/layers/materializers/npm/NpmProblem.js"
import { resolveVersion, type Packument } from "../../src/layers/materializers/npm/Registry.js"

// How an npm: source's version spec resolves (spec 02 §2 npm): exact, dist-tag,
// else a semver range with node-semver's meaning. The table pins what the
// ranges mean, so a semver upgrade that changed them would show here.

const packument = (versions: ReadonlyArray<string>, distTags: Record<string, string> = {}): Packument => ({
  name: "kb",
  distTags,
  versions: Object.fromEntries(versions.map((version) => [version, { version, tarball: `http://127.0.0.1/kb-${version}.tgz` }]))
})

const resolved = (versions: ReadonlyArray<string>, spec: string | undefined, distTags: Record<string, string> = {}): string =>
  resolveVersion(packument(versions, distTags), spec).version

const problem = (versions: ReadonlyArray<string>, spec: string, distTags: Record<string, string> = {}): NpmProblem => {
  try {
    resolveVersion(packument(versions, distTags), spec)
  } catch (error) {
    if (error instanceof NpmProblem) return error
    throw error
  }
  throw new Error(`${spec} resolved`)
}

/** Whether `version` satisfies `range`, asked of the resolver with that one version published. */
const matches = (range: string, version: string): boolean => {
  try {
    return resolved([version], range) === version
  } catch (error) {
    if (error instanceof NpmProblem && error.reason === `no version of kb matches ${range.trim()}`) return false
    throw error
  }
}

describe("exact versions and dist-tags", () => {
  it("an exact version, also spelled with a leading v or =", () => {
    const versions = ["1.0.0", "1.2.3", "2.0.0"]
    for (const spec of ["1.2.3", "v1.2.3", "=1.2.3", " 1.2.3 "]) expect(resolved(versions, spec, { latest: "2.0.0" }), spec).toBe("1.2.3")
  })

  it("no spec or a blank one → the latest dist-tag; a named dist-tag → its version", () => {
    const tags = { latest: "1.0.0", beta: "2.0.0-beta.1" }
    expect(resolved(["1.0.0", "1.1.0", "2.0.0-beta.1"], undefined, tags)).toBe("1.0.0")
    expect(resolved(["1.0.0", "1.1.0", "2.0.0-beta.1"], "  ", tags)).toBe("1.0.0")
    expect(resolved(["1.0.0", "1.1.0", "2.0.0-beta.1"], "beta", tags)).toBe("2.0.0-beta.1")
  })

  it("a dist-tag pointing at an unlisted version is named as such", () => {
    expect(problem(["1.0.0"], "next", { next: "3.0.0" }).reason).toBe("dist-tag 'next' of kb points at 3.0.0, which the registry does not list")
  })
})

describe("ranges", () => {
  const table: ReadonlyArray<[range: string, yes: ReadonlyArray<string>, no: ReadonlyArray<string>]> = [
    ["1.2.3", ["1.2.3"], ["1.2.4", "1.2.3-beta.1"]],
    ["=1.2.3", ["1.2.3"], ["1.2.2"]],
    ["*", ["0.0.0", "10.0.0"], ["1.0.0-beta"]],
    ["1", ["1.0.0", "1.9.9"], ["2.0.0", "0.9.0", "2.0.0-0"]],
    ["1.2.x", ["1.2.0", "1.2.9"], ["1.3.0", "1.1.9"]],
    ["^1.2.3", ["1.2.3", "1.9.9"], ["1.2.2", "2.0.0", "2.0.0-alpha", "1.3.0-alpha"]],
    ["^0.2.3", ["0.2.3", "0.2.9"], ["0.3.0", "0.2.2"]],
    ["^0.0.3", ["0.0.3"], ["0.0.4", "0.0.2"]],
    ["^0.x", ["0.0.0", "0.9.0"], ["1.0.0"]],
    ["^0.0", ["0.0.0", "0.0.9"], ["0.1.0"]],
    ["^1.2.3-beta.1", ["1.2.3-beta.1", "1.2.3-beta.2", "1.2.3", "1.5.0"], ["1.2.3-alpha", "1.3.0-alpha", "1.2.3-beta.0"]],
    ["~1.2.3", ["1.2.3", "1.2.9"], ["1.3.0", "1.2.2"]],
    ["~1.2", ["1.2.0", "1.2.9"], ["1.3.0"]],
    ["~1", ["1.0.0", "1.9.0"], ["2.0.0"]],
    ["~>1.2", ["1.2.5"], ["1.3.0"]],
    [">1.2", ["1.3.0"], ["1.2.9"]],
    [">=1.2", ["1.2.0"], ["1.1.9"]],
    ["<1.2", ["1.1.9"], ["1.2.0", "1.2.0-beta"]],
    ["<=1.2", ["1.2.9"], ["1.3.0"]],
    [">1", ["2.0.0"], ["1.9.9"]],
    ["<=1", ["1.9.9"], ["2.0.0"]],
    [">*", [], ["0.0.0", "1.0.0"]],
    [">= 1.2.3 < 2", ["1.2.3", "1.9.0"], ["2.0.0", "1.2.2"]],
    ["1.2.3 - 2.3.4", ["1.2.3", "2.3.4"], ["2.3.5", "1.2.2"]],
    ["1.2 - 2.3.4", ["1.2.0"], ["1.1.9"]],
    ["1.2.3 - 2.3", ["2.3.9"], ["2.4.0"]],
    ["1.2.3 - 2", ["2.9.9"], ["3.0.0"]],
    ["1.x || >=2.3.4 <3", ["1.5.0", "2.3.4", "2.9.0"], ["2.0.0", "3.0.0"]],
    ["^1.0.0 || ^2.0.0", ["1.0.0", "2.5.0"], ["3.0.0", "0.9.0"]],
    [">1.2.3-beta.1 <1.2.4", ["1.2.3-beta.2", "1.2.3"], ["1.2.3-beta.1", "1.2.4"]]
  ]
  for (const [range, yes, no] of table) {
    it(`'${range}'`, () => {
      for (const version of yes) expect(matches(range, version), `${version} satisfies ${range}`).toBe(true)
      for (const version of no) expect(matches(range, version), `${version} does not satisfy ${range}`).toBe(false)
    })
  }

  it("dist-tags and typos are neither ranges nor versions: the error says so and lists what there is", () => {
    for (const text of ["latest", "beta", "next", "1.2.3.4", "^^1", ">=abc", "1 - ", "~1.2.3 - 2"]) {
      const error = problem(["1.0.0"], text)
      expect(error.reason, text).toMatch(/^'.*' is not a version, a semver range or a dist-tag of kb$/)
      expect(error.hint).toBe("use npm:kb@<version|range|tag>; newest versions: 1.0.0")
    }
  })

  it("like npm: latest when it satisfies the range, else the highest match, ignoring prereleases the range does not name", () => {
    const versions = ["1.0.0", "1.1.0", "1.2.0-beta.1", "2.0.0", "2.1.0-rc.1", "v1.1.5"]
    expect(resolved(versions, "^1")).toBe("v1.1.5")
    expect(resolved(versions, "^1", { latest: "1.0.0" })).toBe("1.0.0")
    expect(resolved(versions, ">=2")).toBe("2.0.0")
    expect(resolved(versions, "^2.1.0-rc.0")).toBe("2.1.0-rc.1")
    expect(resolved(versions, "^1.2.0-beta.0")).toBe("1.2.0-beta.1")
  })

  it("no version satisfies: the error names the range and the newest versions, by precedence, prereleases before their release", () => {
    const versions = ["1.0.0-beta.2", "not-a-version", "1.0.0-beta.11", "1.0.0", "1.0.0-rc.1", "1.10.0", "1.2.0", "0.9.0"]
    const error = problem(versions, "^3", { latest: "1.10.0", next: "1.0.0-rc.1" })
    expect(error.reason).toBe("no version of kb matches ^3")
    expect(error.hint).toBe("newest versions: 1.10.0, 1.2.0, 1.0.0, 1.0.0-rc.1, 1.0.0-beta.11; dist-tags: latest → 1.10.0, next → 1.0.0-rc.1")
    expect(problem(["2.0.0-alpha"], "^1.2.3").reason).toBe("no version of kb matches ^1.2.3")
  })
})
