import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"

/**
 * R-WS-3, the run-level half of the home guard (test/support/homeGuard.ts is
 * the worker half): snapshot the real home's akm directories before the run and
 * fail the run if any of them was created or modified by it. Also owns the
 * run's temp root, under which every worker makes its own workspace dirs, so
 * one `rm` cleans up after the run.
 */

declare module "vitest" {
  export interface ProvidedContext {
    /** The temp dir this run's workers create their home/workspace dirs in. */
    readonly akmTestTmpRoot: string
  }
}

/** Deep enough for config.yaml, state.db, txn/ journals and locks/, shallow enough to stay fast on a large cache. */
const maxDepth = 3

type Snapshot = ReadonlyMap<string, number>

/** path → mtimeMs for the dir and its entries down to `maxDepth`; an absent dir is an empty map. */
const snapshot = (dir: string): Snapshot => {
  const entries = new Map<string, number>()
  const walk = (path: string, depth: number): void => {
    let stat
    try {
      stat = lstatSync(path)
    } catch {
      return
    }
    entries.set(path, stat.mtimeMs)
    if (stat.isDirectory() && depth < maxDepth) {
      for (const name of readdirSync(path)) walk(join(path, name), depth + 1)
    }
  }
  walk(dir, 0)
  return entries
}

const changes = (before: Snapshot, after: Snapshot): Array<string> => {
  const found: Array<string> = []
  for (const [path, mtime] of after) {
    const was = before.get(path)
    if (was === undefined) found.push(`created ${path}`)
    else if (was !== mtime) found.push(`modified ${path}`)
  }
  for (const path of before.keys()) if (!after.has(path)) found.push(`deleted ${path}`)
  return found
}

export default function setup(project: TestProject) {
  const home = userInfo().homedir
  const guarded = [join(home, ".config", "akm"), join(home, ".local", "share", "akm"), join(home, ".cache", "akm")]
    .map((dir) => ({ dir, before: snapshot(dir) }))

  const tmpRoot = mkdtempSync(join(tmpdir(), `akm-test-run-${process.pid}-`))
  project.provide("akmTestTmpRoot", tmpRoot)

  return () => {
    rmSync(tmpRoot, { recursive: true, force: true })
    const touched = guarded.flatMap(({ dir, before }) => changes(before, snapshot(dir)))
    if (touched.length > 0) {
      throw new Error(
        `R-WS-3: the test run touched the real home directory:\n  ${touched.join("\n  ")}\n` +
          "Tests must resolve $CONFIG/$DATA/$CACHE through the temp dirs set by test/support/homeGuard.ts."
      )
    }
  }
}
