import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { repoRoot } from "../support/cli.js"

/**
 * Spec 11 ("a test hook read from process.env in shipped code" is retired):
 * the crash and pause points of the transaction engine are driven only by
 * the CrashPoints test layer (test/support/crashPointsFromEnv.ts), provided
 * by the test-only child entry point. Nothing that ships — the built dist/
 * (CLI, search fast path, worker, library) and the package's bin/ and src/ —
 * names their environment variables, so the shipped CLI can never be made
 * to SIGKILL itself by one.
 */
const HOOKS = ["AKM_TX_CRASH_AT", "AKM_TX_PAUSE_AT"]

const filesUnder = (dir: string, keep: (file: string) => boolean): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(file, keep) : keep(file) ? [file] : []
  })

const naming = (files: ReadonlyArray<string>) => files.filter((file) => HOOKS.some((hook) => fs.readFileSync(file, "utf8").includes(hook))).map((file) => path.relative(repoRoot, file))

describe("shipped code has no crash-test hooks", () => {
  it("no built dist/ file names AKM_TX_CRASH_AT or AKM_TX_PAUSE_AT", () => {
    const dist = path.join(repoRoot, "dist")
    expect(fs.existsSync(path.join(dist, "cli", "main.cjs")), "dist/ is missing: run `npm run build`").toBe(true)
    const built = filesUnder(dist, (file) => /\.(c|m)?js$/.test(file))
    for (const expected of ["cli/main.cjs", "cli/search.cjs", "cli/projector-worker.cjs", "lib/index.js"]) expect(built).toContain(path.join(dist, expected))
    expect(naming(built)).toEqual([])
  })

  it("neither do the package's bin/ and src/ (shipped too, per package.json files)", () => {
    const shipped = ["bin", "src"].flatMap((dir) => filesUnder(path.join(repoRoot, dir), (file) => /\.(c|m)?[jt]s$/.test(file)))
    expect(shipped.length).toBeGreaterThan(50)
    expect(naming(shipped)).toEqual([])
  })
})
