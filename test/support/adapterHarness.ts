import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { FileUnreadable, type BundleAdapter, type BundleInfo, type FileMeta, type ItemPlan, type ProbeContext, type Projection, type ValidateContext } from "../../src/domain/Adapter.js"
import { compareDiagnostics, type Diagnostic } from "../../src/domain/Diagnostic.js"

/**
 * Test harness for adapters: in-memory or on-disk trees turned into the
 * contexts adapters read through, and a plain plan → project → lintBundle run.
 * The production walk (gitignore, symlinks, size guards) lives in the
 * BundleFiles layer and has its own tests.
 */
export type Tree = Readonly<Record<string, string>>

const decoder = new TextDecoder("utf-8", { fatal: true })

export const contextFromTree = (tree: Tree, bundle: Partial<BundleInfo> = {}): ValidateContext => {
  const files: Array<FileMeta> = Object.keys(tree).sort().map((p) => ({ path: p, size: Buffer.byteLength(tree[p]!), mtimeMs: 0 }))
  return {
    bundle: { name: bundle.name ?? "test", root: bundle.root ?? "/virtual", writable: bundle.writable ?? true },
    files,
    exists: (p) => p in tree,
    readText: (p) => (p in tree ? Effect.succeed(tree[p]!) : Effect.fail(new FileUnreadable(p, "missing", `${p} does not exist`)))
  }
}

/** Reads a directory into a Tree (skipping .git and node_modules). */
export const treeFromDir = (root: string, options: { includeHidden?: boolean } = {}): Tree => {
  const out: Record<string, string> = {}
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === ".git" || entry.name === "node_modules") continue
      if (!options.includeHidden && entry.name.startsWith(".")) continue
      const abs = path.join(dir, entry.name)
      if (entry.isDirectory()) visit(abs)
      else if (entry.isFile()) {
        const bytes = fs.readFileSync(abs)
        let text: string
        try {
          text = decoder.decode(bytes)
        } catch {
          text = "\u0000binary"
        }
        out[path.relative(root, abs).split(path.sep).join("/").normalize("NFC")] = text
      }
    }
  }
  visit(root)
  return out
}

export const probeContextFromTree = (tree: Tree): ProbeContext => {
  const paths = Object.keys(tree).sort()
  const dirs = new Set<string>()
  for (const p of paths) {
    const parts = p.split("/")
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"))
  }
  const entries = [...new Set(paths.map((p) => (p.includes("/") ? `${p.split("/")[0]}/` : p)))].sort()
  return {
    entries,
    exists: (p) => Effect.succeed(p in tree || dirs.has(p.replace(/\/$/, ""))),
    isDirectory: (p) => Effect.succeed(dirs.has(p.replace(/\/$/, ""))),
    readText: (p) => Effect.succeed(tree[p]),
    find: (predicate, limit = 1000) => Effect.succeed(paths.filter(predicate).slice(0, limit))
  }
}

export interface ScanOutput {
  readonly items: ReadonlyArray<{ readonly conceptId: string; readonly files: ReadonlyArray<string>; readonly projection: Projection }>
  readonly diagnostics: ReadonlyArray<Diagnostic>
}

/** plan → project every item (a failing item becomes a diagnostic) → lintBundle; sorted, deterministic. */
export const scanTree = (adapter: BundleAdapter, tree: Tree, bundle: Partial<BundleInfo> = {}): ScanOutput =>
  Effect.runSync(
    Effect.gen(function* () {
      const ctx = contextFromTree(tree, bundle)
      const planned = adapter.plan(ctx.files, ctx.bundle)
      const diagnostics: Array<Diagnostic> = [...planned.diagnostics]
      const items: Array<{ conceptId: string; files: ReadonlyArray<string>; projection: Projection; plan: ItemPlan }> = []
      for (const plan of planned.items) {
        const result = yield* Effect.either(adapter.project(plan, ctx))
        if (result._tag === "Left") {
          diagnostics.push({ code: result.left.code, severity: "error", path: result.left.path, message: result.left.message })
          continue
        }
        diagnostics.push(...result.right.diagnostics)
        items.push({ conceptId: plan.conceptId, files: plan.files, projection: result.right.projection, plan })
      }
      if (adapter.lintBundle !== undefined) diagnostics.push(...(yield* adapter.lintBundle(ctx, items.map((i) => ({ plan: i.plan, projection: i.projection })))))
      return {
        items: items.map(({ conceptId, files, projection }) => ({ conceptId, files, projection })).sort((a, b) => (a.conceptId < b.conceptId ? -1 : 1)),
        diagnostics: diagnostics.sort(compareDiagnostics)
      }
    })
  )

export const scanDir = (adapter: BundleAdapter, root: string, bundle: Partial<BundleInfo> = {}): ScanOutput =>
  scanTree(adapter, treeFromDir(root, { includeHidden: adapter.includeHidden ?? false }), { root, ...bundle })

/** Codes of diagnostics, for compact assertions. */
export const codes = (diagnostics: ReadonlyArray<Diagnostic>, severity?: Diagnostic["severity"]): ReadonlyArray<string> =>
  diagnostics.filter((d) => severity === undefined || d.severity === severity).map((d) => d.code)
