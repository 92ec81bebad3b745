import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { crontabFile } from "../../../src/layers/runtime/CrontabFile.js"
import { crontabProgram } from "../../../src/layers/runtime/CrontabProgram.js"
import { crontabContract } from "../../services/Crontab.contract.js"
import { tempDir } from "../tempDir.js"

// The file layer: runtime.crontabFile.
crontabContract("plain file", Effect.map(tempDir("crontab-file"), (dir) => {
  const file = path.join(dir, "sub", "crontab")
  return {
    crontab: crontabFile(file),
    otherWriter: (text: string) => {
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, text)
    }
  }
}))

/**
 * A fake `crontab` first on PATH in a temp dir, keeping its table in a file
 * (never the real crontab): -l prints it or says "no crontab for …" (exit 1)
 * as cronie does, - installs stdin, -r removes it.
 */
const FAKE = `#!/bin/sh
f="$FAKE_CRONTAB"
echo "$*" >> "$f.calls"
case "$1" in
  -l) if [ -f "$f" ]; then cat "$f"; else echo "no crontab for tester" >&2; exit 1; fi ;;
  -r) if [ -f "$f" ]; then rm "$f"; else echo "no crontab for tester" >&2; exit 1; fi ;;
  -) cat > "$f" ;;
  *) echo "usage" >&2; exit 2 ;;
esac
`

const fakeCrontab = Effect.map(tempDir("crontab-program"), (dir) => {
  const bin = path.join(dir, "bin")
  fs.mkdirSync(bin)
  fs.writeFileSync(path.join(bin, "crontab"), FAKE, { mode: 0o755 })
  const table = path.join(dir, "table")
  return { bin, table, env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}`, FAKE_CRONTAB: table } }
})

// The program layer: `crontab -l` / `crontab -`, through the fake.
crontabContract("crontab program (fake on PATH)", Effect.map(fakeCrontab, ({ env, table }) => ({
  crontab: crontabProgram({ env }),
  otherWriter: (text: string) => fs.writeFileSync(table, text)
})))

describe("Crontab layers", () => {
  it("the program layer checks the table again right before installing (crontab -l, crontab -l, crontab -)", () =>
    Effect.runPromise(Effect.scoped(Effect.gen(function* () {
      const { env, table } = yield* fakeCrontab
      const crontab = crontabProgram({ env })
      const text = yield* crontab.read
      yield* crontab.replace(text, "@daily true\n")
      expect(fs.readFileSync(`${table}.calls`, "utf8")).toBe("-l\n-l\n-\n")
    }))))

  it("a crontab program that fails is a clear error, not an empty table", () =>
    Effect.runPromise(Effect.scoped(Effect.gen(function* () {
      const dir = yield* tempDir("crontab-broken")
      fs.writeFileSync(path.join(dir, "crontab"), "#!/bin/sh\necho 'cron daemon not permitted' >&2\nexit 1\n", { mode: 0o755 })
      const crontab = crontabProgram({ env: { ...process.env, PATH: `${dir}${path.delimiter}${process.env.PATH ?? ""}` } })
      const result = yield* Effect.flip(crontab.read)
      expect(result.message).toMatch(/crontab -l` failed \(exit 1\): cron daemon not permitted/)
      const missing = yield* Effect.flip(crontabProgram({ program: path.join(dir, "nope") }).read)
      expect(missing.message).toMatch(/no such command/)
    }))))

  it("the file layer keeps the file's mode and writes through a symlink to its target", () =>
    Effect.runPromise(Effect.scoped(Effect.gen(function* () {
      const dir = yield* tempDir("crontab-mode")
      const real = path.join(dir, "real")
      fs.writeFileSync(real, "x\n", { mode: 0o600 })
      fs.chmodSync(real, 0o600)
      const link = path.join(dir, "link")
      fs.symlinkSync(real, link)
      yield* crontabFile(link).replace("x\n", "y\n")
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
      expect(fs.readFileSync(real, "utf8")).toBe("y\n")
      expect(fs.statSync(real).mode & 0o777).toBe(0o600)
    }))))
})
