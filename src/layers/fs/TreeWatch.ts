import { watch, type FSWatcher } from "node:fs"

/**
 * Watches folders recursively and calls `onChange` on any change below them
 * (`akm mcp`'s index freshness, src/cli/mcp/freshness.ts). A folder that
 * cannot be watched (missing, too many watches) makes `onChange` fire on
 * every check instead: the caller then refreshes as if always changed.
 * Returns the function that stops every watcher.
 */
export interface WatchedTree {
  readonly path: string
  /** Only changes to these entries of the folder count (the folder is then watched without its subfolders). */
  readonly only?: ReadonlyArray<string> | undefined
}

export const watchTrees = (trees: ReadonlyArray<WatchedTree>, onChange: () => void): { readonly close: () => void; readonly complete: boolean } => {
  const watchers: Array<FSWatcher> = []
  let complete = true
  for (const tree of trees) {
    try {
      const only = tree.only
      const watcher = watch(tree.path, { recursive: only === undefined, persistent: false }, (_event, name) => {
        if (only === undefined || name === null || only.includes(String(name))) onChange()
      })
      // An error after start (the folder removed, a watch limit hit) counts as a change; the next refresh re-watches.
      watcher.on("error", () => onChange())
      watchers.push(watcher)
    } catch {
      complete = false
    }
  }
  return {
    complete,
    close: () => {
      for (const watcher of watchers) watcher.close()
    }
  }
}
