import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import { Effect } from "effect"
import { AkmTest } from "../../src/layers/test/AkmTest.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { configSet, configUnset } from "../../src/programs/config.js"
import { remember } from "../../src/programs/remember.js"
import { caller, failure, folder, mine, notesWithGuide } from "./writeFixtures.js"

describe("remember", () => {
  it.effect("an akm memory: title from the first sentence, description, tags, body kept", () =>
    Effect.gen(function* () {
      yield* mine
      const result = yield* remember({ text: "Use the VPN for staging! Otherwise every request times out.", tags: ["vpn", " ", "staging"] })
      expect(result).toMatchObject({ status: "accepted", title: "Remember: Use the VPN for staging", files: ["memories/use-the-vpn-for-staging.md"] })
      expect(fs.readFileSync(result.path, "utf8")).toBe(
        "---\ndescription: Use the VPN for staging!\ntags:\n  - vpn\n  - staging\n---\n\n# Use the VPN for staging\n\nUse the VPN for staging! Otherwise every request times out.\n"
      )
      const titled = yield* remember({ text: "body text", title: "Custom title" })
      expect(titled.files).toEqual(["memories/custom-title.md"])
      expect(failure(yield* Effect.exit(remember({ text: "  \n " })))._tag).toBe("UsageError")
    }).pipe(Effect.provide(AkmTest)))

  it.effect("remember picks a free name, writes OKF memories as concepts of type memory, and refuses adapters without memories", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: notesWithGuide(), name: "notes", ...caller })
      yield* bundleAdd({ source: folder({ "pdf/SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms. Use when asked.\n---\n# PDF\n" }), name: "skills", ...caller })
      const first = yield* remember({ text: "Deploys freeze on Fridays", bundle: "notes" })
      const second = yield* remember({ text: "Deploys freeze on Fridays\n\nafter 3pm", bundle: "notes" })
      expect([first.files, second.files]).toEqual([["memories/deploys-freeze-on-fridays.md"], ["memories/deploys-freeze-on-fridays-2.md"]])
      expect(fs.readFileSync(first.path, "utf8")).toMatch(/^---\ntype: memory\ntitle: Deploys freeze on Fridays\n/)
      const refused = failure(yield* Effect.exit(remember({ text: "x", bundle: "skills" })))
      expect(refused).toMatchObject({ _tag: "Conflict", hint: expect.stringContaining("akm create <type> --bundle skills") })
    }).pipe(Effect.provide(AkmTest)))

  it.effect("the write target is --bundle, else defaultBundle, else a usage error naming both", () =>
    Effect.gen(function* () {
      yield* bundleAdd({ source: notesWithGuide(), name: "notes", ...caller })
      yield* configUnset("defaultBundle")
      const missing = failure(yield* Effect.exit(remember({ text: "x" })))
      expect(missing).toMatchObject({ _tag: "UsageError", hint: expect.stringContaining("--bundle") })
      expect(missing.hint).toContain("akm config set defaultBundle")
      yield* configSet("defaultBundle", "notes")
      expect((yield* remember({ text: "now it works" })).bundle).toBe("notes")
    }).pipe(Effect.provide(AkmTest)))

})
