import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { homedir, tmpdir, userInfo } from "node:os"
import { isAbsolute, join, parse, relative, resolve } from "node:path"
import { inject } from "vitest"

/**
 * R-WS-3, the worker half of the home guard (vitest setupFile; the run half is
 * test/support/globalSetup.ts): before any test code runs, every location akm
 * could resolve — AKM_*_DIR, XDG_*_HOME and HOME itself — points into this
 * worker's own temp dir, and the worker refuses to run if one still resolves
 * inside the real home.
 */

/** The real home from the passwd entry, which overriding $HOME does not change. */
const realHome = (() => {
  try {
    return userInfo().homedir
  } catch {
    return process.env.AKM_TEST_REAL_HOME ?? homedir()
  }
})()

/** Set once per worker process, so later test files in the same worker reuse its dirs. */
const marker = "AKM_TEST_WORKER_DIR"

const workerDir = (): string => {
  const existing = process.env[marker]
  if (existing !== undefined && existing !== "") return existing
  process.env.AKM_TEST_REAL_HOME = realHome
  const runRoot = inject("akmTestTmpRoot") as string | undefined
  const dir = mkdtempSync(join(runRoot ?? tmpdir(), `akm-test-${process.pid}-`))
  // Without globalSetup nobody removes the run root, so the worker cleans up after itself.
  if (runRoot === undefined) process.on("exit", () => rmSync(dir, { recursive: true, force: true }))
  process.env[marker] = dir
  return dir
}

const root = workerDir()
const sub = (name: string): string => {
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  return dir
}

// Always replaced, even when the developer exported them: a test must never write into a real workspace.
for (const [name, dir] of [["AKM_CONFIG_DIR", "config"], ["AKM_DATA_DIR", "data"], ["AKM_CACHE_DIR", "cache"]] as const) {
  process.env[name] = sub(dir)
}
process.env.XDG_CONFIG_HOME = sub("xdg-config")
process.env.XDG_DATA_HOME = sub("xdg-data")
process.env.XDG_CACHE_HOME = sub("xdg-cache")
process.env.HOME = sub("home")

/** Resolves symlinks where the path exists, so a link into the home is caught too. */
const canonical = (path: string): string => {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

const inside = (path: string, dir: string): boolean => {
  const rel = relative(canonical(dir), canonical(path))
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))
}

// A home of "/" (a user without a passwd home) contains everything; guard akm's own default dirs there instead.
const protectedDirs =
  parse(realHome).root === resolve(realHome)
    ? [join(realHome, ".config", "akm"), join(realHome, ".local", "share", "akm"), join(realHome, ".cache", "akm")]
    : [realHome]

const guarded = ["AKM_CONFIG_DIR", "AKM_DATA_DIR", "AKM_CACHE_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "HOME"]
const leaks = guarded.filter((name) => protectedDirs.some((dir) => inside(process.env[name]!, dir)))
if (leaks.length > 0) {
  throw new Error(
    `R-WS-3: tests must not resolve into the real home ${realHome}, but ${leaks.map((name) => `${name}=${process.env[name]}`).join(", ")} do. ` +
      "Unset those variables (or point them and TMPDIR outside the home) before running the tests."
  )
}
