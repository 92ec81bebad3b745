// A throwaway akm workspace for benchmark children: every location akm could
// resolve (AKM_*_DIR, XDG_*_HOME, HOME) points into one temp dir, so no
// benchmark ever reads or writes the real home (R-WS-3). remove() deletes it.
// The rest of the environment is inherited: start-up is measured as the
// caller's shell would see it (NODE_EXTRA_CA_CERTS alone changes `node -e 0`
// several-fold, see docs/decisions/0002-start-up.md), and run.mjs records it.
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"

export const makeBenchWorkspace = () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "akm-bench-")))
  const env = {
    ...process.env,
    HOME: join(root, "home"),
    AKM_CONFIG_DIR: join(root, "config"),
    AKM_DATA_DIR: join(root, "data"),
    AKM_CACHE_DIR: join(root, "cache"),
    XDG_CONFIG_HOME: join(root, "xdg-config"),
    XDG_DATA_HOME: join(root, "xdg-data"),
    XDG_CACHE_HOME: join(root, "xdg-cache")
  }
  mkdirSync(env.HOME)
  return {
    root,
    env,
    /** Writes a folder of files (relative path → content) under the workspace and returns its path. */
    folder: (name, files) => {
      const path = join(root, name)
      for (const [file, content] of Object.entries(files)) {
        mkdirSync(dirname(join(path, file)), { recursive: true })
        writeFileSync(join(path, file), content)
      }
      return path
    },
    /** Runs a setup command (e.g. `node bin/akm.js bundle add …`) in the workspace; failing is fatal. */
    setup: (file, args) => {
      const run = spawnSync(file, args, { cwd: root, env, encoding: "utf8", timeout: 60_000 })
      if (run.status !== 0) throw new Error(`benchmark setup \`${args.join(" ")}\` exited with ${run.status ?? run.signal}: ${run.stderr.trim()}`)
    },
    remove: () => rmSync(root, { recursive: true, force: true })
  }
}
