import { describe, expect, it } from "vitest"
import { compareVersions, maxSatisfying, parseRange, parseVersion, satisfies, sortDescending } from "../../src/layers/materializers/npm/SemverRange.js"

// The range matcher npm: sources resolve with (spec 02 §2 npm); expected values follow node-semver.

const matches = (range: string, version: string): boolean => {
  const parsed = parseRange(range)
  if (parsed === undefined) throw new Error(`not a range: ${range}`)
  return satisfies(parseVersion(version)!, parsed)
}

describe("versions", () => {
  it("parses strict semver, tolerating a leading v or =", () => {
    expect(parseVersion("1.2.3")).toMatchObject({ major: 1, minor: 2, patch: 3, prerelease: [], raw: "1.2.3" })
    expect(parseVersion("v1.2.3-beta.11+build.5")).toMatchObject({ prerelease: ["beta", 11], raw: "1.2.3-beta.11+build.5" })
    expect(parseVersion("=1.0.0")?.raw).toBe("1.0.0")
    for (const bad of ["1.2", "01.2.3", "1.2.3-01", "latest", "1.2.3.4", "", "x"]) expect(parseVersion(bad), bad).toBeUndefined()
  })

  it("orders by precedence, prereleases before their release", () => {
    const ordered = ["1.0.0-0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.10.0", "2.0.0"]
    for (let i = 1; i < ordered.length; i++) {
      expect(compareVersions(parseVersion(ordered[i - 1]!)!, parseVersion(ordered[i]!)!), `${ordered[i - 1]} < ${ordered[i]}`).toBeLessThan(0)
    }
    expect(compareVersions(parseVersion("1.0.0+a")!, parseVersion("1.0.0+b")!)).toBe(0)
    expect(sortDescending(["1.0.0", "not-a-version", "10.0.0", "2.0.0-rc.1", "2.0.0"])).toEqual(["10.0.0", "2.0.0", "2.0.0-rc.1", "1.0.0"])
  })
})

describe("ranges", () => {
  const table: ReadonlyArray<[range: string, yes: ReadonlyArray<string>, no: ReadonlyArray<string>]> = [
    ["1.2.3", ["1.2.3"], ["1.2.4", "1.2.3-beta.1"]],
    ["=1.2.3", ["1.2.3"], ["1.2.2"]],
    ["*", ["0.0.0", "10.0.0"], ["1.0.0-beta"]],
    ["", ["1.0.0"], ["1.0.0-beta"]],
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

  it("dist-tags and typos are not ranges", () => {
    for (const text of ["latest", "beta", "next", "1.2.3.4", "^^1", ">=abc", "1 - ", "~1.2.3 - 2"]) expect(parseRange(text), text).toBeUndefined()
  })

  it("maxSatisfying picks the highest match, ignoring prereleases the range does not name", () => {
    const versions = ["1.0.0", "1.1.0", "1.2.0-beta.1", "2.0.0", "2.1.0-rc.1", "v1.1.5"]
    expect(maxSatisfying(versions, parseRange("^1")!)).toBe("v1.1.5")
    expect(maxSatisfying(versions, parseRange(">=2")!)).toBe("2.0.0")
    expect(maxSatisfying(versions, parseRange("^2.1.0-rc.0")!)).toBe("2.1.0-rc.1")
    expect(maxSatisfying(versions, parseRange("^3")!)).toBeUndefined()
  })
})
