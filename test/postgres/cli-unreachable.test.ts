import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeWorkspace } from "../support/cli.js"

/** storage config and an unreachable server through the real CLI (no PostgreSQL server needed). */
const PASSWORD = "pw-5d2c91e07b"
const ws = makeWorkspace()
// The first run may build dist/ (test/support/cli.ts).
beforeAll(async () => {
  await ws.run(["init"])
}, 600_000)
afterAll(() => ws.cleanup())

const configure = (yaml: string) => writeFileSync(join(ws.configDir, "config.yaml"), yaml)

describe("akm with storage.kind postgres (no server)", () => {
  it("a literal URL in config.yaml is refused (78) without echoing it, naming where the URL goes instead", async () => {
    configure(`storage:\n  kind: postgres\n  url: postgres://akm:${PASSWORD}@db.internal:5432/akm\n`)
    const run = await ws.run(["info", "--format", "json"])
    expect(run.code).toBe(78)
    expect(run.error().error.code).toBe("config")
    expect(run.error().error.message).toContain("storage.url")
    expect(run.error().error.message).toContain("AKM_DATABASE_URL")
    expect(run.stdout + run.stderr).not.toContain(PASSWORD)
  })

  it("an unreachable server: health lists it as one attention item (4), a state command fails with database_unreachable (78)", async () => {
    configure("storage:\n  kind: postgres\n")
    const env = { AKM_DATABASE_URL: `postgres://akm:${PASSWORD}@127.0.0.1:1/akm` }
    const health = await ws.run(["health", "--format", "json"], { env })
    expect(health.code).toBe(4)
    expect(health.json().attention.map((a: { code: string }) => a.code)).toEqual(["database-unreachable"])
    expect(health.json().storage).toMatchObject({ backend: "postgres", server: "postgres://127.0.0.1:1/akm", reachable: false })
    expect(health.json().proposals.pending).toBeNull()
    const info = await ws.run(["info", "--format", "text"], { env })
    expect(info.code).toBe(0)
    expect(info.stdout).toMatch(/storage\s+postgres postgres:\/\/127\.0\.0\.1:1\/akm \(unreachable\)/)
    const list = await ws.run(["proposal", "list", "--format", "json"], { env })
    expect(list.code).toBe(78)
    expect(list.error().error).toMatchObject({ code: "database_unreachable" })
    for (const run of [health, info, list]) expect(run.stdout + run.stderr).not.toContain(PASSWORD)
  })

  it("without the URL's variable the reference is named, and nothing crashes", async () => {
    configure("storage:\n  kind: postgres\n")
    const run = await ws.run(["proposal", "list", "--format", "json"], { env: { AKM_DATABASE_URL: "" } })
    expect(run.code).toBe(78)
    expect(run.error().error.message).toContain("AKM_DATABASE_URL is not set")
  })
})
