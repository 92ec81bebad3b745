import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"

/** The pinned Effect 3 stack (spec 00 §4): npm `latest` is Effect 4, which must never slip in. */
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
  allowScripts: Record<string, boolean>
  engines: { node: string }
}
const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8")) as {
  packages: Record<string, { version?: string }>
}

describe("pinned stack", () => {
  it("pins every dependency to an exact version", () => {
    for (const [name, range] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      expect(range, name).toMatch(/^\d+\.\d+\.\d+$/)
    }
  })

  it("has only Effect 3 in the installed tree and no @effect/schema", () => {
    const installed = Object.entries(lock.packages).filter(([path]) => path !== "")
    const effects = installed.filter(([path]) => path.endsWith("node_modules/effect"))
    expect(effects.length).toBeGreaterThan(0)
    for (const [path, entry] of effects) expect(entry.version, path).toMatch(/^3\.22\./)
    expect(installed.filter(([path]) => path.endsWith("node_modules/@effect/schema"))).toEqual([])
  })

  it("uses better-sqlite3 12 (13 needs Node 22) and approves install scripts by package name", () => {
    expect(pkg.dependencies["better-sqlite3"]).toMatch(/^12\./)
    expect(pkg.allowScripts).toMatchObject({ "better-sqlite3": true, esbuild: true })
    expect(pkg.engines.node).toBe(">=20.19")
    expect(pkg.devDependencies.typescript).toMatch(/^5\.9\./)
  })
})
