import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Exit } from "effect"
import { afterAll } from "vitest"
import { bundleCreate } from "../../src/programs/bundle/create.js"
import { WorkspaceConfig } from "../../src/services/WorkspaceConfig.js"

/** Shared set-up of the tests of writing programs (proposals, remember, import, create). */

const made: Array<string> = []
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

/** A temp folder with the given files, removed after the file's tests. */
export const folder = (files: Record<string, string> = {}): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-writes-")))
  made.push(dir)
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), content)
  }
  return dir
}

export const caller = { cwd: os.tmpdir(), home: os.tmpdir() }

/** An akm bundle "mine", the default bundle of the temp workspace; yields its root. */
export const mine = Effect.gen(function* () {
  yield* bundleCreate({ name: "mine", setDefault: true, ...caller })
  return (yield* (yield* WorkspaceConfig).readLock).bundles["mine"]!.root
})

/** An OKF notes folder with one concept. */
export const notesWithGuide = (): string => folder({ "index.md": "# Notes\n", "guide.md": "---\ntype: guide\ntitle: Guide\n---\n# Guide\n\nStep one.\n" })

/** The typed failure of an exit (throws when it succeeded or died). */
export const failure = <A, E>(exit: Exit.Exit<A, E>): E & { readonly _tag: string; readonly message: string; readonly hint?: string } => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (error === undefined) throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return error as E & { readonly _tag: string; readonly message: string }
}

/** The adapter fixtures (one folder per adapter), copied by the incremental index and validation tests. */
export const adapterFixtures = path.resolve(__dirname, "../fixtures/adapters")

/** Bundle-relative paths of a tree's markdown files, sorted. */
export const markdownFiles = (root: string): ReadonlyArray<string> =>
  (fs.readdirSync(root, { recursive: true, encoding: "utf8" }) as Array<string>)
    .map((p) => p.split(path.sep).join("/"))
    .filter((p) => p.endsWith(".md") && fs.statSync(path.join(root, p)).isFile())
    .sort()
