import { existsSync, realpathSync } from "node:fs"
import { homedir, tmpdir, userInfo } from "node:os"
import { isAbsolute, relative } from "node:path"
import { describe, expect, it } from "vitest"

// R-WS-3: test/support/homeGuard.ts has run before this file.
const realHome = process.env.AKM_TEST_REAL_HOME ?? userInfo().homedir

const within = (path: string, dir: string): boolean => {
  const rel = relative(realpathSync(dir), realpathSync(path))
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel))
}

describe("home guard (R-WS-3)", () => {
  it.each(["AKM_CONFIG_DIR", "AKM_DATA_DIR", "AKM_CACHE_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"])(
    "%s is an existing dir outside the real home",
    (name) => {
      const dir = process.env[name]
      expect(dir).toBeDefined()
      expect(existsSync(dir!)).toBe(true)
      expect(within(dir!, realHome)).toBe(false)
    }
  )

  it("HOME is a temp dir, and os.homedir() follows it", () => {
    const home = process.env.HOME!
    expect(home).not.toBe(realHome)
    expect(within(home, tmpdir())).toBe(true)
    expect(homedir()).toBe(home)
  })
})
