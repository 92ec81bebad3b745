import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { makeAkmLive } from "../../src/layers/AkmLive.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { configSet } from "../../src/programs/config.js"
import { createItem } from "../../src/programs/create.js"
import { importFile } from "../../src/programs/import.js"
import { indexBundles } from "../../src/programs/indexBundles.js"
import { remember } from "../../src/programs/remember.js"
import { Redactor } from "../../src/services/Redactor.js"
import { caller, folder } from "./writeFixtures.js"

// Canary values (fake): one per value source of spec 08 §2.1.
const IN_ROOT_ENV = "rootEnvCanary-41a7-9QX"
const IN_ENV_ITEM = "envItemCanary-93f2-ZKT"
const IN_SECRET = "secretItemCanary-5be0-MWP"
const PATTERN_SECRET = "ghp_FAKEcanary0000TESTtest1111EXAMPLE22zz"
const CANARIES = [IN_ROOT_ENV, IN_ENV_ITEM, IN_SECRET, PATTERN_SECRET]

/** The real service graph (state.db, logs.db, index.db files) in a temp workspace. */
const liveWorkspace = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "akm-redactor-"))
  const dirs = { configDir: path.join(root, "config"), dataDir: path.join(root, "data"), cacheDir: path.join(root, "cache") }
  return { root, dirs, layer: makeAkmLive({ ...dirs, quiet: true }) }
}

/** Every file under `dir` whose bytes contain `needle`. */
const filesContaining = (dir: string, needle: string): ReadonlyArray<string> => {
  const hits: Array<string> = []
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && fs.readFileSync(full).includes(needle)) hits.push(full)
    }
  }
  walk(dir)
  return hits
}

describe("redactor at index time and in authored proposals", () => {
  it.live("index stores digests of root .env*, env and secret values; remember, import and create write only redacted text; no canary reaches any db, log or written file", () => {
    const { root, dirs, layer } = liveWorkspace()
    const bundleRoot = folder({
      ".env": `# local settings\nAPI_TOKEN=${IN_ROOT_ENV}\nSHORT=abc\n`,
      "env/prod.env": `DB_PASSWORD="${IN_ENV_ITEM}"\n`,
      "secrets/deploy-key": `${IN_SECRET}\n`,
      "knowledge/readme.md": "# Readme\n\nNothing secret here.\n"
    })
    const importDir = folder({ "leak.md": `---\ntitle: Leak ${IN_ENV_ITEM}\nnote: ${IN_SECRET}\n---\nThe key is ${IN_ROOT_ENV} and ${PATTERN_SECRET}.\n` })
    return Effect.gen(function* () {
      yield* bundleAdd({ source: bundleRoot, name: "mine", adapter: "akm", ...caller })
      yield* configSet("defaultBundle", "mine")
      yield* indexBundles()
      const redactor = yield* Redactor
      expect(yield* redactor.redact(`${IN_ROOT_ENV} ${IN_ENV_ITEM} ${IN_SECRET} SHORT=abc`)).toBe("[redacted:env] [redacted:env] [redacted:env] SHORT=abc")

      const memory = yield* remember({ text: `Deploy with ${IN_SECRET} then ${PATTERN_SECRET}`, tags: [IN_ENV_ITEM] })
      const imported = yield* importFile({ source: path.join(importDir, "leak.md"), ...caller })
      const created = yield* createItem({ type: "knowledge", title: `Token ${IN_ROOT_ENV}`, body: `uses ${IN_ENV_ITEM}`, ...caller })
      for (const result of [memory, imported, created]) {
        const text = fs.readFileSync(result.path, "utf8")
        expect(text).toContain("[redacted:")
        for (const canary of CANARIES) expect(text, `${result.path} holds ${canary}`).not.toContain(canary)
        for (const canary of CANARIES) expect(result.title).not.toContain(canary)
      }
    }).pipe(
      Effect.provide(layer),
      Effect.ensuring(Effect.sync(() => {
        // Bundle files outside the bundle's own secret files, and every db, log, journal and archive blob.
        for (const canary of CANARIES) {
          expect(filesContaining(dirs.dataDir, canary), canary).toEqual([])
          expect(filesContaining(dirs.configDir, canary), canary).toEqual([])
          expect(filesContaining(dirs.cacheDir, canary), canary).toEqual([])
          const inBundle = filesContaining(bundleRoot, canary).map((f) => path.relative(bundleRoot, f)).filter((f) => ![".env", "env/prod.env", "secrets/deploy-key"].includes(f))
          expect(inBundle, canary).toEqual([])
        }
        fs.rmSync(root, { recursive: true, force: true })
      }))
    )
  })

  it.live("a changed .env value replaces the old digest on the next index run", () => {
    const { root, layer } = liveWorkspace()
    const a = folder({ ".env": `A_SECRET=${IN_ROOT_ENV}\n`, "knowledge/a.md": "# A\n" })
    return Effect.gen(function* () {
      yield* bundleAdd({ source: a, name: "a", adapter: "akm", ...caller })
      expect(yield* (yield* Redactor).redact(IN_ROOT_ENV)).toBe("[redacted:env]")
      fs.writeFileSync(path.join(a, ".env"), "A_SECRET=replaced-value-0001\n")
      yield* indexBundles()
      expect(yield* (yield* Redactor).redact(`${IN_ROOT_ENV} replaced-value-0001`)).toBe(`${IN_ROOT_ENV} [redacted:env]`)
    }).pipe(Effect.provide(layer), Effect.ensuring(Effect.sync(() => fs.rmSync(root, { recursive: true, force: true }))))
  })
})
