import { existsSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { sha256Hex } from "../../../src/domain/Digest.js"
import { akmAdapter } from "../../../src/layers/adapters/akm/index.js"
import { dotenvAdapter } from "../../../src/layers/adapters/dotenv/index.js"
import { contextFromTree, scanTree } from "../../support/adapterHarness.js"

// Runtime exports on the adapter contract (spec 07 §1): digest = sha256 of the definition's bytes; env definitions carry no value.
const ENV = "# akm:public Deploy settings\n\n# akm:public The API token\nAPI_TOKEN=CANARY-export-value-123\nREGION=eu\n"

describe("BundleAdapter.exports", () => {
  it("akm: env, workflows, tasks and scripts are exports; notes and secrets are not", () => {
    const tree = {
      "env/deploy.env": ENV,
      "workflows/release.md": "---\ntype: workflow\nsteps: [build]\n---\n## build\nRun it.\n",
      "tasks/nightly.yml": "version: 2\nschedule: \"@daily\"\ncommand: make backup\nenv: [BACKUP_TOKEN]\n",
      "scripts/bump.sh": "#!/bin/sh\necho bump\n",
      "knowledge/note.md": "# Note\n",
      "secrets/api": "CANARY-secret-value-456"
    }
    const exports = Effect.runSync(akmAdapter.exports!(contextFromTree(tree, { name: "team" })))
    expect(exports.map((e) => [e.ref, e.kind]).sort()).toEqual([
      ["team//env/deploy", "environment"],
      ["team//scripts/bump.sh", "script"],
      ["team//tasks/nightly", "task"],
      ["team//workflows/release", "workflow"]
    ])
    const env = exports.find((e) => e.kind === "environment")!
    expect(env.digest).toBe(sha256Hex(ENV))
    expect(env.requirements.env).toEqual(["API_TOKEN", "REGION"])
    expect(env.definition).toBe("# Deploy settings\n\n# The API token\nAPI_TOKEN\nREGION\n")
    expect(JSON.stringify(exports)).not.toContain("CANARY")
    expect(exports.find((e) => e.kind === "task")!.requirements.env).toEqual(["BACKUP_TOKEN"])
  })

  it("dotenv: each env file is an export; a changed value changes the digest but not the definition", () => {
    const before = Effect.runSync(dotenvAdapter.exports!(contextFromTree({ "env/prod.env": ENV, "secrets/x": "y" }, { name: "vault" })))
    const after = Effect.runSync(dotenvAdapter.exports!(contextFromTree({ "env/prod.env": ENV.replace("eu", "us") }, { name: "vault" })))
    expect(before.map((e) => e.ref)).toEqual(["vault//env/prod"])
    expect(after[0]!.digest).not.toBe(before[0]!.digest)
    expect(after[0]!.definition).toBe(before[0]!.definition)
  })

  it("installing and indexing runs nothing: scanning a bundle with scripts and tasks leaves no trace (R-RT-1)", () => {
    const marker = `/tmp/akm-rt1-${process.pid}-${Date.now()}`
    const tree = { "scripts/mark.sh": `#!/bin/sh\ntouch ${marker}\n`, "tasks/t.yml": `version: 2\nschedule: "@daily"\ncommand: touch ${marker}\n`, "env/a.env": "A=1\n" }
    scanTree(akmAdapter, tree, { name: "x" })
    Effect.runSync(akmAdapter.exports!(contextFromTree(tree, { name: "x" })))
    expect(existsSync(marker)).toBe(false)
  })
})
