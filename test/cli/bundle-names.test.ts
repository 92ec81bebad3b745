import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

/**
 * Bundle names (spec 01 §5): a new name is `[a-z0-9][a-z0-9_-]{0,62}`, refused
 * otherwise with a suggested name; an older name outside the rule still loads,
 * with a warning suggesting `akm bundle rename`; every command akm prints as a
 * hint quotes the name for a POSIX shell.
 */
describe("bundle names", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)
  const folder = workspace.folder("kb", { "guide.md": "# Guide\n\nHow the zebras are fed.\n" })

  it("add, create and rename refuse a new name outside the rule and suggest one", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["bundle", "add", folder, "--name", "Team KB"], "team-kb"],
      [["bundle", "add", folder, "--name", "y$(id)"], "y-id"],
      [["bundle", "create", "Notes.Old"], "notes-old"],
      [["bundle", "create", "_private"], "private"],
      [["bundle", "create", "x".repeat(64)], "x".repeat(63)],
      [["bundle", "create", "Café"], "cafe"]
    ]
    for (const [args, suggestion] of cases) {
      const r = await workspace.run(args)
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2)
      expect(r.error().error.hint, args.join(" ")).toContain(`try '${suggestion}'`)
    }
    expect((await workspace.run(["bundle", "list"])).json().bundles).toEqual([])
  })

  it("a default name from the source follows the rule", async () => {
    const upper = workspace.folder("Team Notes.v2", { "a.md": "# A\n" })
    const r = await workspace.run(["bundle", "add", upper])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().name).toBe("team-notes-v2")
    expect((await workspace.run(["bundle", "remove", "team-notes-v2"])).code).toBe(0)
  })

  describe("an older name outside the rule", () => {
    const legacy = "y$(id)"
    beforeAll(async () => {
      const added = await workspace.run(["bundle", "add", folder, "--name", "zzlegacy"])
      expect(added.code, added.stderr).toBe(0)
      // As an older akm would have written it.
      for (const file of [join(workspace.configDir, "config.yaml"), join(workspace.dataDir, "akm.lock")]) {
        writeFileSync(file, readFileSync(file, "utf8").replaceAll('"zzlegacy"', JSON.stringify(legacy)).replaceAll("zzlegacy", JSON.stringify(legacy)))
      }
    })

    it("still loads; health warns and every hint quotes the name", async () => {
      const health = await workspace.run(["health"])
      const attention: ReadonlyArray<{ code: string; bundle?: string; hint: string }> = health.json().attention
      expect(attention.find((a) => a.code === "not-indexed")?.hint).toContain("`akm index --bundle 'y$(id)'`")
      expect(attention.find((a) => a.code === "bundle-name")).toEqual(expect.objectContaining({ bundle: legacy, hint: "rename it: akm bundle rename 'y$(id)' y-id" }))
      const text = await workspace.run(["health", "--format", "text"])
      expect(text.stdout).not.toMatch(/akm [a-z -]+ y\$\(id\)/)

      expect((await workspace.run(["index"])).code).toBe(0)
      const listed = await workspace.run(["bundle", "list"])
      expect(listed.code, listed.stderr).toBe(0)
      expect(listed.json().bundles.map((b: { name: string }) => b.name)).toEqual([legacy])
      expect(listed.stderr).toContain("akm bundle rename 'y$(id)' y-id")
      const search = await workspace.run(["search", "zebras"])
      expect(search.json().hits.map((h: { ref: string; next: string }) => [h.ref, h.next])).toEqual([["y$(id)//guide", "akm show 'y$(id)//guide'"]])
    })

    it("renames to the suggested name", async () => {
      const renamed = await workspace.run(["bundle", "rename", legacy, "y-id"])
      expect(renamed.code, renamed.stderr).toBe(0)
      const health = (await workspace.run(["health"])).json()
      expect(health.attention.filter((a: { code: string }) => a.code === "bundle-name")).toEqual([])
      expect((await workspace.run(["search", "zebras"])).json().hits.map((h: { ref: string }) => h.ref)).toEqual(["y-id//guide"])
    })
  })
})
