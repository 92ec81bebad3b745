import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import type { BundleAdapter, BundleInfo } from "../../src/domain/Adapter.js"
import { akmAdapter } from "../../src/layers/adapters/akm/index.js"
import { okfAdapter } from "../../src/layers/adapters/okf/index.js"
import { BundleFilesNode } from "../../src/layers/fs/BundleFilesNode.js"
import { scanWith, type ScanResult } from "../../src/programs/scan.js"
import { ItemProjector } from "../../src/services/ItemProjector.js"
import { BundleFiles } from "../../src/services/BundleFiles.js"
import { projectSequentially } from "../../src/domain/ItemProjection.js"

/**
 * What every ItemProjector layer promises (R-AD-8, R-IDX-4): a scan through it
 * is deep-equal to the scan through the reference projector below (one item
 * after another, in this thread) — the same documents in the same order, the same per-item and whole-bundle
 * findings — whether items are projected here, on worker threads, or here
 * again after a worker failed.
 */
export interface ProjectorFixture {
  readonly layer: Layer.Layer<ItemProjector, never, BundleFiles>
  /** Called after the scans: e.g. how many items the main thread projected itself. */
  readonly check?: (info: { readonly adapter: BundleAdapter; readonly plans: number; readonly mainThreadProjections: number }) => void
}

const made: Array<string> = []

/** A bundle of `count` OKF notes linking to each other, plus items that fail in each way a scan reports. */
const okfBundle = (count: number): string => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-projector-okf-")))
  made.push(root)
  const write = (file: string, content: string | Uint8Array) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    fs.writeFileSync(path.join(root, file), content)
  }
  write("index.md", `# Notes\n\n${Array.from({ length: count }, (_, i) => `* [Note ${i}](notes/n${String(i).padStart(3, "0")}.md) - note ${i}`).join("\n")}\n`)
  for (let i = 0; i < count; i++) {
    const next = String((i + 1) % count).padStart(3, "0")
    write(
      `notes/n${String(i).padStart(3, "0")}.md`,
      `---\ntype: guide\ntitle: Note ${i}\ndescription: About topic ${i % 7}\ntags: [t${i % 5}, shared]\n---\n# Note ${i}\n\nSee [the next one](n${next}.md) and \`code ${i}\`.\n\n## Details\n\n- item ${i}\n`
    )
  }
  write("notes/broken-link.md", "# Broken\n\nSee [missing](nowhere.md).\n")
  write("notes/bad-yaml.md", "---\ntitle: [unclosed\n---\n# Bad yaml\n")
  write("notes/latin1.md", Uint8Array.from([0x23, 0x20, 0xe9, 0x74, 0xe9, 0x0a]))
  return root
}

/** An akm bundle: knowledge, memories and a skill directory. */
const akmBundle = (count: number): string => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-projector-akm-")))
  made.push(root)
  const write = (file: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    fs.writeFileSync(path.join(root, file), content)
  }
  for (let i = 0; i < count; i++) write(`knowledge/k${String(i).padStart(3, "0")}.md`, `---\ndescription: Knowledge ${i}\ntags: [k${i % 3}]\n---\n# Knowledge ${i}\n\nBody ${i} links [k0](k000.md#knowledge-0).\n`)
  for (let i = 0; i < 5; i++) write(`memories/m${i}.md`, `---\ndescription: Memory ${i}\n---\nRemember ${i}.\n`)
  write("skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Deploys the thing\n---\n# Deploy\n\nRun it.\n")
  write("knowledge/bad-fragment.md", "# Bad\n\nSee [k0](k000.md#no-such-heading).\n")
  return root
}

/** The reference: every planned item projected in order, in this thread, straight through the domain function. */
const referenceProjector = Layer.effect(
  ItemProjector,
  Effect.map(BundleFiles, (files) =>
    ItemProjector.of({
      run: (job, emit) => projectSequentially(job.info, job.adapter, job.ctx, (paths) => files.hash(job.info.root, paths, job.ctx), job.plans, job.order, job.batchSize, emit)
    }))
)

const scan = (root: string, adapter: BundleAdapter, layer: ProjectorFixture["layer"] = referenceProjector) => {
  const info: BundleInfo = { name: "b", root, writable: true }
  return Effect.runPromise(scanWith(info, adapter).pipe(Effect.provide(layer), Effect.provide(BundleFilesNode)) as unknown as Effect.Effect<ScanResult>)
}

export const itemProjectorContract = (name: string, makeFixture: () => ProjectorFixture) => {
  describe(`ItemProjector contract: ${name}`, () => {
    afterAll(() => made.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

    for (const [label, adapter, bundle] of [
      ["okf", okfAdapter, () => okfBundle(120)],
      ["akm", akmAdapter, () => akmBundle(90)]
    ] as const) {
      it(`a scan of a ${label} bundle equals the in-process scan: documents, order and findings (R-IDX-4, R-AD-8)`, async () => {
        const fixture = makeFixture()
        const root = bundle()
        const expected = await scan(root, adapter)
        expect(expected.documents.length).toBeGreaterThan(80)
        expect(expected.diagnostics.length).toBeGreaterThan(0)
        let mainThreadProjections = 0
        const project = adapter.project
        // Counted in place, so the adapter stays the built-in object a worker layer recognises.
        ;(adapter as { project: BundleAdapter["project"] }).project = (plan, ctx) => {
          mainThreadProjections++
          return project(plan, ctx)
        }
        try {
          const actual = await scan(root, adapter, fixture.layer)
          expect(actual).toEqual(expected)
          expect(actual.documents.map((d) => d.ref)).toEqual([...actual.documents.map((d) => d.ref)].sort())
        } finally {
          ;(adapter as { project: BundleAdapter["project"] }).project = project
        }
        fixture.check?.({ adapter, plans: expected.documents.length + 2, mainThreadProjections })
      }, 60_000)
    }

    it("an adapter that is not built in is projected too", async () => {
      const fixture = makeFixture()
      const root = okfBundle(30)
      const custom: BundleAdapter = { ...okfAdapter }
      expect(await scan(root, custom, fixture.layer)).toEqual(await scan(root, custom))
    }, 60_000)
  })
}
