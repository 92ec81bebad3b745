import { readFileSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { isAbsolute, join, relative } from "node:path"
import { describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot, runAkm } from "../support/cli.js"

// The CLI shell end to end (spec 09 §1, §2): version, help, completions, usage errors.

const { version } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }

describe.concurrent("akm --version, --help, completions", () => {
  it("--version prints the package.json version", async () => {
    const r = await runAkm(["--version"])
    expect(r.code).toBe(0)
    expect(r.stdout.trim()).toBe(version)
  })

  it("--help lists every command", async () => {
    const r = await runAkm(["--help"])
    expect(r.code).toBe(0)
    for (const command of ["init", "info", "config", "bundle", "completions"]) expect(r.stdout).toMatch(new RegExp(`\\n  ${command} +\\S`))
  })

  it.each(["bash", "zsh", "fish"])("completions %s prints a script for akm", async (shell) => {
    const r = await runAkm(["completions", shell])
    expect(r.code).toBe(0)
    expect(r.stdout.trim().length).toBeGreaterThan(100)
    expect(r.stdout).toContain("akm")
  })
})

describe.concurrent("usage errors exit 2 (spec 09 §2)", () => {
  it("an unknown command: stdout empty, the JSON envelope on stderr (stdout is not a TTY)", async () => {
    const r = await runAkm(["frobnicate"])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    const envelope = r.error()
    expect(envelope.ok).toBe(false)
    expect(envelope.error.code).toBe("usage")
    expect(envelope.error.message).toBe("unknown command 'frobnicate'")
    expect(envelope.error.hint).toContain("init") // names the commands that do exist
    expect(envelope.error.hint).toContain("--help")
  })

  it("an unknown command with --format text: human text with a hint", async () => {
    const r = await runAkm(["frobnicate", "--format", "text"])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(() => JSON.parse(r.stderr)).toThrow()
    expect(r.stderr).toMatch(/hint: .*--help/)
  })

  it("an unknown flag", async () => {
    const r = await runAkm(["info", "--bogus"])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.error().error.code).toBe("usage")
    expect(r.error().error.message).toContain("--bogus")
  })

  it("a --format that does not exist", async () => {
    const r = await runAkm(["info", "--format", "xml"])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.error().error.code).toBe("usage")
  })

  it("a completions shell that does not exist", async () => {
    const r = await runAkm(["completions", "ksh"])
    expect(r.code).toBe(2)
    expect(r.error().error.code).toBe("usage")
  })
})

describe.concurrent("global options", () => {
  it("may come before the command: akm --format text config path", async () => {
    const workspace = makeWorkspace()
    try {
      const r = await workspace.run(["--format", "text", "config", "path"])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toBe(`${join(workspace.configDir, "config.yaml")}\n`)
    } finally {
      workspace.cleanup()
    }
  })

  it("--config-dir overrides AKM_CONFIG_DIR", async () => {
    const workspace = makeWorkspace()
    try {
      const elsewhere = workspace.folder("elsewhere")
      const r = await workspace.run(["config", "path", "--config-dir", elsewhere])
      expect(r.code, r.stderr).toBe(0)
      expect(r.json().path).toBe(join(elsewhere, "config.yaml"))
    } finally {
      workspace.cleanup()
    }
  })
})

describe("the home guard for child processes (R-WS-3)", () => {
  it("every directory the child resolves lies under os.tmpdir()", async () => {
    const workspace = makeWorkspace()
    try {
      const tmp = realpathSync(tmpdir())
      const under = (path: string) => {
        const rel = relative(tmp, path)
        return !rel.startsWith("..") && !isAbsolute(rel)
      }
      for (const name of ["AKM_CONFIG_DIR", "AKM_DATA_DIR", "AKM_CACHE_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "HOME"]) {
        expect(under(workspace.env[name]!), name).toBe(true)
      }
      // …and the child itself agrees: the paths it reports are the temp ones.
      const r = await workspace.run(["info", "--format", "json"])
      expect(r.code).toBe(0)
      const { paths } = r.json<{ paths: Record<string, string> }>()
      expect(paths.configDir).toBe(workspace.configDir)
      expect(paths.dataDir).toBe(workspace.dataDir)
      expect(paths.cacheDir).toBe(workspace.cacheDir)
      for (const path of Object.values(paths)) expect(under(path), path).toBe(true)
    } finally {
      workspace.cleanup()
    }
  })
})
