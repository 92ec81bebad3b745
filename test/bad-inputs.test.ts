import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Either, Layer } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as Ref from "../src/domain/Ref.js"
import { builtInRegistry, registryAdapters } from "../src/layers/adapters/registry.js"
import { BundleFilesNode, makeBundleFiles } from "../src/layers/fs/BundleFilesNode.js"
import { makeTransactionEngine } from "../src/layers/fs/TransactionEngine.js"
import { ItemProjectorInProcess } from "../src/layers/projector/ItemProjectorWorkers.js"
import { AkmTest } from "../src/layers/test/AkmTest.js"
import { bundleAdd } from "../src/programs/bundle/add.js"
import { lint } from "../src/programs/lint.js"
import { scanWith } from "../src/programs/scan.js"
import type { BundleFiles } from "../src/services/BundleFiles.js"
import type { ItemProjector } from "../src/services/ItemProjector.js"
import { buildBadInputs, CANARY, type BadInputs } from "./support/badInputs.js"

/**
 * R-AD-5 and spec 10 §3: every built-in adapter scans the bad-input corpus
 * without crashing; a bad file it takes is indexed with what can be salvaged or
 * diagnosed; the good files beside them are indexed; nothing is written
 * (R-AD-7) and nothing outside the root is read (R-AD-4).
 */
let corpus: BadInputs
beforeAll(() => {
  corpus = buildBadInputs()
})
afterAll(() => fs.rmSync(corpus.base, { recursive: true, force: true }))

/** Every entry under a directory (not following links) with its bytes or link target and mtime. */
const snapshot = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, entry.name)
      const stat = fs.lstatSync(abs)
      const content = entry.isSymbolicLink() ? `-> ${fs.readlinkSync(abs)}` : entry.isFile() ? fs.readFileSync(abs).toString("base64") : entry.isDirectory() ? "dir" : "special"
      out[path.relative(root, abs)] = `${stat.mtimeMs} ${stat.size} ${content}`
      if (entry.isDirectory()) visit(abs)
    }
  }
  visit(root)
  return out
}

/** The good files each adapter must still index beside the bad ones (hand-checked). */
const goodIds: Record<string, ReadonlyArray<string>> = {
  project: ["AGENTS", "CLAUDE", "rules/good-rule"],
  "website-snapshot": ["good"],
  "agent-skills": ["good-skill"],
  claude: ["CLAUDE", "commands/good-command"],
  opencode: ["AGENTS", "commands/good-command"],
  dotenv: ["env/good"],
  "akm-workflow": ["good-workflow"],
  "akm-task": ["good-task"],
  "llm-wiki": ["pages/good-page"],
  akm: ["knowledge/good-knowledge", "commands/good-command", "env/good"],
  okf: ["good", "bom", "crlf", "with space", "new\nline"],
  "generic-files": ["good", "env/good.env"]
}

describe("the bad-input corpus never crashes a scan (R-AD-5)", () => {
  const adapters = registryAdapters(builtInRegistry)

  it("covers every built-in adapter", () => {
    expect(Object.keys(goodIds).sort()).toEqual(adapters.map((a) => a.id).sort())
  })

  for (const adapter of adapters) {
    it(`${adapter.id}: bad files are salvaged or diagnosed, good files indexed, nothing written or read outside`, async () => {
      const info = { name: "bad", root: corpus.root, writable: true }
      const before = snapshot(corpus.base)
      const run = <A, E>(effect: Effect.Effect<A, E, BundleFiles | ItemProjector>) => Effect.runPromise(effect.pipe(Effect.provide(ItemProjectorInProcess.pipe(Layer.provideMerge(BundleFilesNode)))))
      const scan = await run(scanWith(info, adapter))
      expect(scan.complete).toBe(true)
      expect(scan.diagnostics.filter((d) => d.code === "adapter-failed")).toEqual([])

      for (const finding of corpus.walkFindings) {
        expect(scan.diagnostics, `${finding.code} for ${finding.path}`).toContainEqual(expect.objectContaining(finding))
      }
      const indexed = new Set(scan.documents.flatMap((d) => d.files))
      const diagnosed = new Set(scan.diagnostics.map((d) => d.path))
      const walked = Effect.runSync(makeBundleFiles().walk(corpus.root, { includeHidden: adapter.includeHidden ?? false }))
      const taken = adapter.plan(walked.files, info).items.map((item) => item.files[0]!).filter((file) => corpus.badContent.includes(file))
      for (const file of taken) expect(indexed.has(path.join(corpus.root, file)) || diagnosed.has(file), `${file} is neither indexed nor diagnosed`).toBe(true)
      // Text that cannot be decoded is diagnosed, or the file is indexed by name only (generic-files' `file` items).
      for (const file of ["invalid-utf8.md", "nul-bytes.md", "binary.md", "env/broken.env"].filter((f) => taken.includes(f))) {
        const document = scan.documents.find((d) => d.path === path.join(corpus.root, file))
        if (document === undefined) expect(scan.diagnostics, file).toContainEqual(expect.objectContaining({ code: "invalid-encoding", path: file }))
        else expect(document.content, file).toBeUndefined()
      }

      expect(scan.documents.map((d) => d.conceptId)).toEqual(expect.arrayContaining([...goodIds[adapter.id]!]))
      expect(snapshot(corpus.base)).toEqual(before)
      expect(JSON.stringify(scan)).not.toContain(CANARY)
      expect(await run(scanWith(info, adapter))).toEqual(scan)
    })
  }

  it.effect("lint over the corpus as a configured bundle reports and does not fail", () =>
    Effect.gen(function* () {
      const before = snapshot(corpus.base)
      yield* bundleAdd({ source: corpus.root, name: "bad", cwd: os.tmpdir(), home: os.tmpdir() })
      const result = yield* lint({ strict: true, fix: false, failOn: "error" })
      expect(result.bundles[0]!.items).toBeGreaterThan(0)
      expect(result.counts.error + result.counts.warning).toBeGreaterThan(0)
      expect(JSON.stringify(result)).not.toContain(CANARY)
      expect(snapshot(corpus.base)).toEqual(before)
    }).pipe(Effect.provide(AkmTest)))
})

describe("hostile paths and refs", () => {
  it("the ref parser refuses traversal and malformed refs without throwing", () => {
    for (const input of ["../../etc/passwd", "b//../x", "b//a/./c", "/etc/passwd", "C:\\Windows", "b//a\u0000b", "b//", "", "a//b#c//d/../e"]) {
      const parsed = Ref.parse(input)
      if (input === "a//b#c//d/../e") expect(parsed).toEqual(Either.right({ bundle: "a", conceptId: "b", fragment: "c//d/../e" }))
      else expect(Either.isLeft(parsed), input).toBe(true)
    }
  })

  it("a ValidateContext never reads a traversal or absolute path", () => {
    const files = makeBundleFiles()
    const walked = Effect.runSync(files.walk(corpus.root, { includeHidden: false }))
    const ctx = files.context({ name: "bad", root: corpus.root, writable: true }, walked.files)
    for (const p of ["../outside/secret.md", path.join(corpus.outside, "secret.md"), "escape.md", "escape-dir/secret.md", "loop/good.md", "b//../x"]) {
      expect(ctx.exists(p), p).toBe(false)
      expect(Either.isLeft(Effect.runSync(Effect.either(ctx.readText(p)))), p).toBe(true)
    }
  })

  it("the transaction engine refuses writes through traversal, escaping links and loops", async () => {
    const before = snapshot(corpus.base)
    const data = fs.mkdtempSync(path.join(os.tmpdir(), "akm-bad-txn-"))
    const adapter = registryAdapters(builtInRegistry).find((a) => a.id === "akm")!
    const engine = makeTransactionEngine({
      paths: { txnDir: path.join(data, "txn"), archiveDir: path.join(data, "archive"), locksDir: path.join(data, "locks") },
      bundles: () => Effect.succeed({ name: "bad", root: fs.realpathSync(corpus.root), writable: true, adapter, gitCommit: false }),
      files: makeBundleFiles()
    })
    for (const [i, p] of ["../outside/new.md", "escape-dir/new.md", "escape.md", "loop/new.md", "self.md"].entries()) {
      const result = await Effect.runPromise(Effect.either(engine.apply({ id: `bad-${i}`, changes: [{ bundle: "bad", path: p, beforeHash: null, after: "x" }] })))
      expect(Either.isLeft(result), p).toBe(true)
    }
    expect(snapshot(corpus.base)).toEqual(before)
    fs.rmSync(data, { recursive: true, force: true })
  })
})
