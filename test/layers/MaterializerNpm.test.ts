import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { gzipSync } from "node:zlib"
import { Cause, Effect, Exit, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AkmConfig, BundleSource } from "../../src/domain/Config.js"
import type { LockedBundle } from "../../src/domain/Lock.js"
import { makeNpmMaterializer, type NpmLimits } from "../../src/layers/materializers/MaterializerNpm.js"
import type { MaterializerContext } from "../../src/layers/materializers/SourceMaterializer.js"
import type { Materialized, MaterializeFailed, MaterializeOptions } from "../../src/services/Materializer.js"
import {
  END_OF_ARCHIVE, packageTarball, paxRecords, sha512, startNpmRegistry, tar, tarEntryBytes, tgz,
  type NpmRegistry, type TarEntry
} from "../support/npmRegistry.js"

// The npm materializer against a real local registry (spec 02 §2 npm, spec 10 §3 Archives, R-BUN-1, R-RT-1).

type NpmSource = Extract<BundleSource, { kind: "npm" }>

let registry: NpmRegistry
let root: string
let sourcesDir: string
const progress: Array<{ task: string; done: number; total?: number | undefined }> = []

const context = (registryUrl: string): MaterializerContext => ({
  sourcesDir,
  configDir: root,
  progress: (task, done, total) => Effect.sync(() => void progress.push({ task, done, total })),
  progressDone: () => Effect.void,
  config: Effect.succeed({ bundles: {}, npm: { registry: registryUrl }, website: { allowHosts: ["127.0.0.1"] } } as AkmConfig)
})

const run = (bundle: string, source: Omit<NpmSource, "kind">, options: MaterializeOptions = {}, limits: Partial<NpmLimits> = {}, registryUrl = registry.url) =>
  Effect.runPromiseExit(makeNpmMaterializer(context(registryUrl), limits).materialize(bundle, { kind: "npm", ...source }, options))

const ok = async (bundle: string, source: Omit<NpmSource, "kind">, options: MaterializeOptions = {}): Promise<Materialized> => {
  const exit = await run(bundle, source, options)
  if (Exit.isFailure(exit)) throw new Error(`expected success: ${Cause.pretty(exit.cause)}`)
  return exit.value
}

const failure = async (bundle: string, source: Omit<NpmSource, "kind">, options: MaterializeOptions = {}, limits: Partial<NpmLimits> = {}, registryUrl?: string): Promise<MaterializeFailed> => {
  const exit = await run(bundle, source, options, limits, registryUrl)
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const error = Cause.failureOption(exit.cause)
  if (Option.isNone(error)) throw new Error(`expected a typed failure: ${Cause.pretty(exit.cause)}`)
  expect(error.value._tag).toBe("MaterializeFailed")
  return error.value
}

/** Every file below a folder, relative, sorted. */
const listFiles = (dir: string): Array<string> =>
  fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as Array<string>).filter((f) => !fs.statSync(path.join(dir, f)).isDirectory()).sort() : []

const kb = (version: string) => packageTarball({ "package.json": JSON.stringify({ name: "kb", version }), "README.md": `# kb ${version}\n`, "notes/guide.md": `guide of ${version}\n` })

beforeAll(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(process.env.AKM_TEST_WORKER_DIR ?? os.tmpdir(), "akm-npm-")))
  sourcesDir = path.join(root, "cache", "sources")
  fs.mkdirSync(sourcesDir, { recursive: true })
  registry = await startNpmRegistry()
  for (const version of ["1.0.0", "1.1.0", "2.0.0"]) registry.publish("kb", version, kb(version))
  registry.publish("kb", "2.1.0-beta.1", kb("2.1.0-beta.1"), { tags: ["beta"] })
  registry.publish("@acme/skills", "0.3.1", packageTarball({ "SKILL.md": "# skill\n" }))
})

afterAll(async () => {
  await registry.close()
  fs.rmSync(root, { recursive: true, force: true })
})

describe("resolving the version", () => {
  it("an exact version: extracted under <bundle>/<version> with package/ stripped, revision and sha512 integrity recorded", async () => {
    const result = await ok("exact", { package: "kb", version: "1.1.0" })
    expect(result.revision).toBe("1.1.0")
    expect(result.root).toBe(path.join(sourcesDir, "exact", "1.1.0"))
    expect(result.integrity).toBe(sha512(kb("1.1.0")))
    expect(result.locator).toBe(`npm:kb@1.1.0 (${registry.url})`)
    expect(listFiles(result.root)).toEqual(["README.md", "notes/guide.md", "package.json"])
    expect(fs.readFileSync(path.join(result.root, "README.md"), "utf8")).toBe("# kb 1.1.0\n")
    expect(fs.readdirSync(path.join(sourcesDir, "exact"))).toEqual(["1.1.0"]) // no staging left behind
  })

  it("a semver range: the highest match when latest is outside it", async () => {
    expect((await ok("range", { package: "kb", version: "^1" })).revision).toBe("1.1.0")
    expect((await ok("range2", { package: "kb", version: "~1.0" })).revision).toBe("1.0.0")
    expect((await ok("range3", { package: "kb", version: ">=1.0.0 <2" })).revision).toBe("1.1.0")
  })

  it("no version: the latest dist-tag; a named dist-tag", async () => {
    expect((await ok("latest", { package: "kb" })).revision).toBe("2.0.0")
    expect((await ok("beta", { package: "kb", version: "beta" })).revision).toBe("2.1.0-beta.1")
  })

  it("a scoped package is fetched at /@scope%2fname", async () => {
    const result = await ok("skills", { package: "@acme/skills", version: "^0.3.0" })
    expect(result.revision).toBe("0.3.1")
    expect(listFiles(result.root)).toEqual(["SKILL.md"])
    expect(registry.requests).toContain("/@acme%2fskills")
  })

  it("download progress is reported as bytes of the tarball", async () => {
    progress.length = 0
    await ok("progress", { package: "kb", version: "1.0.0" })
    expect(progress.some((p) => p.task === "download progress" && p.done > 0)).toBe(true)
  })

  it("no version matching the range → the newest versions in the hint", async () => {
    const error = await failure("nomatch", { package: "kb", version: "^9" })
    expect(error.reason).toBe("no version of kb matches ^9")
    expect(error.hint).toContain("2.1.0-beta.1, 2.0.0, 1.1.0, 1.0.0")
    expect(error.hint).toContain("latest → 2.0.0")
  })

  it("an unknown package → not found (404), naming the registry", async () => {
    const error = await failure("missing", { package: "no-such-kb" })
    expect(error.reason).toBe(`package no-such-kb was not found at ${registry.url} (HTTP 404)`)
  })

  it("an invalid package name is refused before any request", async () => {
    const before = registry.requests.length
    const error = await failure("badname", { package: "../../etc" })
    expect(error.reason).toContain("not a valid npm package name")
    expect(registry.requests.length).toBe(before)
  })

  it("the source's own registry wins over config npm.registry", async () => {
    const result = await Effect.runPromise(
      makeNpmMaterializer(context("http://127.0.0.1:9/never")).materialize("own", { kind: "npm", package: "kb", version: "1.0.0", registry: registry.url }, {})
    )
    expect(result.revision).toBe("1.0.0")
  })

  it("the registry down → MaterializeFailed naming the URL", async () => {
    const down = await startNpmRegistry()
    const url = down.url
    await down.close()
    const error = await failure("down", { package: "kb" }, {}, {}, url)
    expect(error.reason).toMatch(new RegExp(`^registry unreachable: GET ${url.replace(/[.]/g, "\\.")}/kb failed \\(ECONNREFUSED\\)$`))
    expect(error.hint).toContain("npm.registry")
  })
})

describe("integrity (verified before extraction)", () => {
  it("a tarball that does not match dist.integrity is refused and nothing is extracted", async () => {
    registry.publish("tampered", "1.0.0", kb("1.0.0"), { serve: kb("6.6.6") })
    const error = await failure("tampered", { package: "tampered" })
    expect(error.reason).toContain("integrity mismatch for tampered@1.0.0")
    expect(error.hint).toContain("nothing was extracted")
    expect(listFiles(path.join(sourcesDir, "tampered"))).toEqual([])
    expect(fs.existsSync(path.join(sourcesDir, "tampered")) ? fs.readdirSync(path.join(sourcesDir, "tampered")) : []).toEqual([])
  })

  it("a version with only a sha1 shasum is refused (weak hashes are not trusted)", async () => {
    registry.publish("old", "0.1.0", kb("0.1.0"), { integrity: null, shasum: "da39a3ee5e6b4b0d3255bfef95601890afd80709" })
    const error = await failure("old", { package: "old" })
    expect(error.reason).toBe("old@0.1.0 has no sha512 integrity in the registry (only a sha1 shasum)")
  })

  it("a tarball over the compressed size cap is refused while downloading", async () => {
    registry.publish("hefty", "1.0.0", packageTarball({ "big.bin": randomBytes(64 * 1024) }))
    const error = await failure("hefty", { package: "hefty" }, {}, { maxTarballBytes: 4096 })
    expect(error.reason).toContain("larger than the")
  })
})

// --- spec 10 §3: every malicious tarball is refused before anything is used ---------------------

const outside = () => path.join(root, `escaped-${Math.random().toString(36).slice(2)}.txt`)

interface Malicious {
  readonly name: string
  readonly rule: RegExp
  readonly tarball: (escapeTo: string) => Buffer
  readonly limits?: Partial<NpmLimits>
}

const readme: TarEntry = { path: "package/README.md", content: "# fine\n" }
const dir: TarEntry = { path: "package/", type: "dir" }

const malicious: ReadonlyArray<Malicious> = [
  {
    name: "a '..' segment",
    rule: /'\.\.' path segment/,
    tarball: (to) => tgz([dir, readme, { path: `package/${path.relative(path.join(sourcesDir, "evil", "x"), to)}`, content: "pwned\n" }])
  },
  { name: "an absolute path", rule: /absolute path/, tarball: (to) => tgz([dir, readme, { path: to, content: "pwned\n" }]) },
  {
    name: "a NUL in a header name",
    rule: /NUL byte in an entry name/,
    tarball: () => tgz([dir, readme, { path: Buffer.from("package/ok.md\0../../../../evil", "latin1"), content: "pwned\n" }])
  },
  {
    name: "a NUL in a pax path",
    rule: /NUL byte in a pax 'path' record/,
    tarball: () =>
      gzipSync(Buffer.concat([
        tarEntryBytes(dir),
        tarEntryBytes({ path: "PaxHeader/x", type: "pax", content: paxRecords({ path: Buffer.from("package/ok.md\0/../../evil", "latin1") }) }),
        tarEntryBytes({ path: "package/x", content: "pwned\n" }),
        END_OF_ARCHIVE
      ]))
  },
  {
    name: "a NUL in a GNU long name",
    rule: /NUL byte in an entry name/,
    tarball: () =>
      gzipSync(Buffer.concat([
        tarEntryBytes(dir),
        tarEntryBytes({ path: "././@LongLink", type: "gnu-longname", content: Buffer.from("package/ok.md\0../../evil\0", "latin1") }),
        tarEntryBytes({ path: "package/x", content: "pwned\n" }),
        END_OF_ARCHIVE
      ]))
  },
  { name: "a hard link", rule: /hard link/, tarball: () => tgz([dir, readme, { path: "package/passwd", type: "hardlink", linkpath: "/etc/passwd" }]) },
  { name: "a hard link inside the package", rule: /hard link/, tarball: () => tgz([dir, readme, { path: "package/copy.md", type: "hardlink", linkpath: "package/README.md" }]) },
  { name: "a character device", rule: /character device/, tarball: () => tgz([dir, readme, { path: "package/null", type: "char" }]) },
  { name: "a block device", rule: /block device/, tarball: () => tgz([dir, readme, { path: "package/sda", type: "block" }]) },
  { name: "a FIFO", rule: /FIFO/, tarball: () => tgz([dir, readme, { path: "package/pipe", type: "fifo" }]) },
  { name: "a symlink escaping the root", rule: /symlink escaping the package root/, tarball: () => tgz([dir, readme, { path: "package/etc", type: "symlink", linkpath: "../../../../../etc" }]) },
  { name: "an absolute symlink", rule: /symlink escaping the package root/, tarball: () => tgz([dir, readme, { path: "package/etc", type: "symlink", linkpath: "/etc" }]) },
  {
    name: "a symlink inside the package (links are refused outright)",
    rule: /symlink \(to "README.md"\); npm bundles may not contain links/,
    tarball: () => tgz([dir, readme, { path: "package/alias.md", type: "symlink", linkpath: "README.md" }])
  },
  {
    name: "an entry over the per-file cap",
    rule: /entry of 21 MiB over the 20 MiB per-file cap/,
    tarball: () => tgz([dir, readme, { path: "package/huge.bin", content: Buffer.alloc(21 * 1024 * 1024) }])
  },
  {
    // 27 gzip members of one 19 MiB entry of zeros each: 0.5 MiB on the wire, 513 MiB unpacked.
    name: "a decompression bomb (default caps)",
    rule: /unpacked size over the 500 MiB cap \(decompression bomb\)/,
    tarball: () => {
      const member = gzipSync(tarEntryBytes({ path: "package/zeros.bin", content: Buffer.alloc(19 * 1024 * 1024) }), { level: 9 })
      return Buffer.concat([gzipSync(tarEntryBytes(dir)), ...Array.from({ length: 27 }, () => member), gzipSync(END_OF_ARCHIVE)])
    }
  },
  {
    name: "too many entries",
    rule: /more than 5 entries/,
    limits: { maxEntries: 5 },
    tarball: () => tgz([dir, ...Array.from({ length: 8 }, (_, i): TarEntry => ({ path: `package/n${i}.md`, content: "x" }))])
  },
  { name: "two top-level folders", rule: /more than one top-level folder/, tarball: () => tgz([dir, readme, { path: "other/x.md", content: "x" }]) },
  { name: "a file beside the package folder", rule: /a file outside the package folder/, tarball: () => tgz([{ path: "evil.md", content: "x" }, dir, readme]) },
  { name: "a pax size override", rule: /pax size override/, tarball: () => gzipSync(Buffer.concat([tarEntryBytes(dir), tarEntryBytes({ path: "PaxHeader/x", type: "pax", content: paxRecords({ size: "3" }) }), tarEntryBytes(readme), END_OF_ARCHIVE])) },
  { name: "a directory with a body", rule: /a body on an entry type that has none/, tarball: () => tgz([dir, { path: "package/d/", type: "dir", content: "hidden header" }, readme]) },
  { name: "not a gzip stream", rule: /not a valid gzip stream/, tarball: () => Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), Buffer.from("garbage that is not deflate data at all")]) },
  { name: "not a tar archive", rule: /not a valid tar archive/, tarball: () => gzipSync(Buffer.from("just some text, not a tar archive\n".repeat(40))) },
  { name: "a corrupt header checksum", rule: /not a valid tar archive/, tarball: () => {
    const bytes = tar([dir, readme])
    bytes[512 + 9] = 0x5a // "package/RZADME.md": the second header's checksum no longer matches
    return gzipSync(bytes)
  } }
]

describe("malicious tarballs are refused before anything is used (spec 10 §3)", () => {
  malicious.forEach((testCase, i) => {
    it(testCase.name, async () => {
      const name = `evil${i}`
      const escapeTo = outside()
      registry.publish(name, "1.0.0", testCase.tarball(escapeTo))
      const error = await failure(name, { package: name }, {}, testCase.limits ?? {})
      expect(error.reason).toMatch(/^tarball refused: /)
      expect(error.reason.match(/tarball refused/g), error.reason).toHaveLength(1) // one finding, not one wrapped in another
      expect(error.reason).toMatch(testCase.rule)
      expect(error.hint).toContain("nothing was installed")
      // Whole tarball refused: no revision folder, no staging folder, nothing written outside.
      const bundleDir = path.join(sourcesDir, name)
      expect(fs.existsSync(bundleDir) ? fs.readdirSync(bundleDir) : []).toEqual([])
      expect(fs.existsSync(escapeTo)).toBe(false)
      expect(fs.readdirSync(root).filter((f) => f.startsWith("escaped-") || f === "evil")).toEqual([])
    }, 30_000)
  })
})

describe("extraction", () => {
  it("strips whatever single top folder the tarball uses and resets modes (no exec or setuid bits)", async () => {
    registry.publish("modes", "1.0.0", tgz([
      { path: "node-kb/", type: "dir", mode: 0o777 },
      { path: "node-kb/run.sh", content: "#!/bin/sh\necho hi\n", mode: 0o4755 },
      { path: "node-kb/docs/", type: "dir", mode: 0o700 },
      { path: "node-kb/docs/a.md", content: "# a\n", mode: 0o600 }
    ]))
    const result = await ok("modes", { package: "modes" })
    expect(listFiles(result.root)).toEqual(["docs/a.md", "run.sh"])
    expect(fs.statSync(path.join(result.root, "run.sh")).mode & 0o7777).toBe(0o644)
    expect(fs.statSync(path.join(result.root, "docs/a.md")).mode & 0o7777).toBe(0o644)
    expect(fs.statSync(path.join(result.root, "docs")).mode & 0o7777).toBe(0o755)
    expect(fs.statSync(result.root).mode & 0o7777).toBe(0o755)
    // npm pack stamps every file 1985-10-26; extraction time is kept instead, so a reindex sees a new version's files as new.
    expect(fs.statSync(path.join(result.root, "run.sh")).mtimeMs).toBeGreaterThan(Date.parse("2020-01-01"))
  })

  it("a large valid package (a 15 MiB file and 500 small ones) extracts completely", async () => {
    const files: Record<string, string | Buffer> = { "data/big.bin": Buffer.alloc(15 * 1024 * 1024, 7) }
    for (let i = 0; i < 500; i++) files[`notes/n${i}.md`] = `# note ${i}\n`
    registry.publish("large", "1.0.0", packageTarball(files))
    const result = await ok("large", { package: "large" })
    expect(listFiles(result.root)).toHaveLength(501)
    expect(fs.statSync(path.join(result.root, "data/big.bin")).size).toBe(15 * 1024 * 1024)
    expect(fs.readFileSync(path.join(result.root, "notes/n499.md"), "utf8")).toBe("# note 499\n")
  }, 30_000)

  it("R-BUN-1/R-RT-1: lifecycle scripts never run; scripts, workflows and .env stay inert files in the cache", async () => {
    const marker = path.join(root, "postinstall-ran")
    const write = `node -e "require('fs').writeFileSync('${marker}','ran')"`
    const files = {
      "package.json": JSON.stringify({ name: "runner", version: "1.0.0", scripts: { preinstall: write, install: write, postinstall: write, prepare: write } }),
      "scripts/setup.sh": `#!/bin/sh\ntouch ${marker}\n`,
      ".github/workflows/ci.yml": "on: push\njobs: {}\n",
      ".env": "TOKEN=canary-value\n",
      "README.md": "# runner\n"
    }
    registry.publish("runner", "1.0.0", packageTarball(files))
    const before = fs.readdirSync(root).sort()
    const result = await ok("runner", { package: "runner" })
    expect(fs.existsSync(marker)).toBe(false)
    expect(process.env.TOKEN).toBeUndefined()
    expect(fs.readdirSync(root).sort()).toEqual(before) // nothing new outside the cache
    expect(listFiles(result.root)).toEqual([".env", ".github/workflows/ci.yml", "README.md", "package.json", "scripts/setup.sh"])
    expect(fs.statSync(path.join(result.root, "scripts/setup.sh")).mode & 0o111).toBe(0)
    expect(result.root.startsWith(sourcesDir + path.sep)).toBe(true)
  })

  it("a newer version goes to a new folder; the old one is untouched", async () => {
    registry.publish("evolving", "1.0.0", kb("1.0.0"))
    const first = await ok("evolving", { package: "evolving", version: "^1" })
    const before = fs.readFileSync(path.join(first.root, "README.md"), "utf8")
    const mtime = fs.statSync(path.join(first.root, "README.md")).mtimeMs
    registry.publish("evolving", "1.2.0", kb("1.2.0"))
    const second = await ok("evolving", { package: "evolving", version: "^1" }, { previous: lock(first) })
    expect(second.revision).toBe("1.2.0")
    expect(second.root).toBe(path.join(sourcesDir, "evolving", "1.2.0"))
    expect(second.root).not.toBe(first.root)
    expect(fs.readFileSync(path.join(first.root, "README.md"), "utf8")).toBe(before)
    expect(fs.statSync(path.join(first.root, "README.md")).mtimeMs).toBe(mtime)
    expect(fs.readdirSync(path.join(sourcesDir, "evolving")).sort()).toEqual(["1.0.0", "1.2.0"])
  })

  it("the same version and integrity as the lock: reused without downloading", async () => {
    registry.publish("steady", "3.0.0", kb("3.0.0"))
    const first = await ok("steady", { package: "steady" })
    const downloads = () => registry.requests.filter((r) => r.startsWith("/steady/-/")).length
    const before = downloads()
    const again = await ok("steady", { package: "steady" }, { previous: lock(first) })
    expect(again).toMatchObject({ root: first.root, revision: "3.0.0", integrity: first.integrity })
    expect(downloads()).toBe(before)
    // --force downloads again but keeps the same folder
    const forced = await ok("steady", { package: "steady" }, { previous: lock(first), force: true })
    expect(forced.root).toBe(first.root)
    expect(downloads()).toBe(before + 1)
  })

  it("a folder of the same version holding other bytes is never reused", async () => {
    registry.publish("twin", "1.0.0", kb("1.0.0"))
    const first = await ok("twin", { package: "twin" })
    registry.publish("twin", "1.0.0", packageTarball({ "README.md": "# republished\n" }))
    const second = await ok("twin", { package: "twin" })
    expect(second.root).not.toBe(first.root)
    expect(path.basename(second.root)).toMatch(/^1\.0\.0-[0-9a-f]{16}$/)
    expect(fs.readFileSync(path.join(second.root, "README.md"), "utf8")).toBe("# republished\n")
    expect(fs.readFileSync(path.join(first.root, "README.md"), "utf8")).toBe("# kb 1.0.0\n")
  })
})

const lock = (materialized: Materialized): LockedBundle => ({
  source: { kind: "npm", locator: materialized.locator },
  revision: materialized.revision,
  integrity: materialized.integrity,
  root: materialized.root,
  adapter: { id: "okf", version: "1" },
  installedAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z"
} as unknown as LockedBundle)
