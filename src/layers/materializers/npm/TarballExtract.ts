import * as fs from "node:fs"
import * as path from "node:path"
import { once } from "node:events"
import { Readable, Writable } from "node:stream"
import { pipeline } from "node:stream/promises"
import { createGunzip } from "node:zlib"
import { NpmProblem } from "./NpmProblem.js"
import { TarHeaderAudit } from "./TarHeaderAudit.js"

/**
 * Unpacks a verified npm tarball into a staging directory, refusing the whole
 * tarball when any entry breaks a rule (spec 02 §2 npm, spec 10 §3 Archives).
 * node-tar only warns about and strips `..` and absolute paths (spec 00 §4.2),
 * so every entry is checked here, in two passes over the same bytes:
 *
 * 1. a listing pass validates node-tar's view of every entry (path, type, size,
 *    link) and a raw header audit (TarHeaderAudit) sees what node-tar hides;
 *    nothing is written;
 * 2. only then the extraction pass writes, with the same checks as a filter
 *    (defence in depth), the leading `package/` stripped, no owners, modes
 *    reset to 0644/0755 (no exec or setuid bits survive) and the extraction
 *    time as mtime.
 *
 * Every symlink is refused, not only escaping ones: npm pack never writes
 * links, and a lexical check is not enough (a link to `.` next to a link to
 * `..` escapes although each looks harmless). Hard links, devices and FIFOs are
 * refused too. Decompressed bytes are counted as they come out of gunzip, so a
 * decompression bomb stops at the cap instead of filling the disk.
 */

export interface ArchiveLimits {
  /** Total decompressed bytes of the tar stream. */
  readonly maxUnpackedBytes: number
  /** One entry's size. */
  readonly maxEntryBytes: number
  readonly maxEntries: number
}

export const defaultArchiveLimits: ArchiveLimits = {
  maxUnpackedBytes: 500 * 1024 * 1024,
  maxEntryBytes: 20 * 1024 * 1024,
  maxEntries: 20_000
}

/** What node-tar reports about an entry (a ReadEntry's fields). */
interface EntryView {
  readonly path: string
  readonly type: string
  readonly size: number
  readonly linkpath?: string | undefined
}

interface Finding {
  readonly entry: string
  readonly rule: string
}

const mib = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`

export const refused = (finding: Finding): NpmProblem =>
  new NpmProblem({
    reason: `tarball refused: ${finding.entry}: ${finding.rule}`,
    hint: "akm refuses archives that could write outside their folder, run as devices or exhaust the disk; nothing was installed — tell the package's author"
  })

/** Checks one entry against the rules, tracking the shared top directory and the running totals. */
class EntryRules {
  private top: string | undefined
  private count = 0
  private bytes = 0

  constructor(private readonly limits: ArchiveLimits) {}

  check(entry: EntryView): Finding | undefined {
    const name = entry.path
    const shown = JSON.stringify(name)
    if (name.includes("\0")) return { entry: shown, rule: "NUL byte in an entry name" }
    if (name === "") return { entry: shown, rule: "empty entry name" }
    if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) return { entry: shown, rule: "absolute path" }
    if (name.includes("\\")) return { entry: shown, rule: "backslash in a path (a Windows separator)" }
    const segments = name.replace(/\/+$/, "").split("/")
    if (segments.includes("..")) return { entry: shown, rule: "'..' path segment (escapes the package folder)" }
    if (segments.some((s) => s === "" || s === ".")) return { entry: shown, rule: "empty or '.' path segment" }

    switch (entry.type) {
      case "File":
      case "OldFile":
      case "ContiguousFile":
      case "Directory":
        break
      case "Link":
        return { entry: shown, rule: `hard link (to ${JSON.stringify(entry.linkpath ?? "")}); npm bundles may not contain links` }
      case "SymbolicLink": {
        const target = entry.linkpath ?? ""
        const inside = path.posix.normalize(path.posix.join(path.posix.dirname(segments.slice(1).join("/")), target))
        const escapes = target.startsWith("/") || inside === ".." || inside.startsWith("../")
        return { entry: shown, rule: escapes ? `symlink escaping the package root (to ${JSON.stringify(target)})` : `symlink (to ${JSON.stringify(target)}); npm bundles may not contain links` }
      }
      case "CharacterDevice":
        return { entry: shown, rule: "character device" }
      case "BlockDevice":
        return { entry: shown, rule: "block device" }
      case "FIFO":
        return { entry: shown, rule: "FIFO (named pipe)" }
      default:
        return { entry: shown, rule: `unsupported entry type ${entry.type}` }
    }

    if (this.top === undefined) this.top = segments[0]
    else if (segments[0] !== this.top) return { entry: shown, rule: `more than one top-level folder (${JSON.stringify(this.top)} and ${JSON.stringify(segments[0])})` }
    if (segments.length === 1 && entry.type !== "Directory") return { entry: shown, rule: "a file outside the package folder" }

    if (entry.size > this.limits.maxEntryBytes) return { entry: shown, rule: `entry of ${mib(entry.size)} over the ${mib(this.limits.maxEntryBytes)} per-file cap` }
    this.bytes += entry.size
    if (this.bytes > this.limits.maxUnpackedBytes) return { entry: shown, rule: `unpacked size over the ${mib(this.limits.maxUnpackedBytes)} cap (decompression bomb)` }
    if (++this.count > this.limits.maxEntries) return { entry: shown, rule: `more than ${this.limits.maxEntries} entries` }
    return undefined
  }
}

/** Counts the tar stream's bytes against the unpacked cap as they come out of gunzip. */
const capped = (limits: ArchiveLimits) =>
  async function* (source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let total = 0
    for await (const chunk of source) {
      total += chunk.length
      // A few tar blocks of slack: the end-of-archive padding can run past the sum of entry sizes.
      if (total > limits.maxUnpackedBytes + 1024 * 1024) {
        throw refused({ entry: "(the archive)", rule: `unpacked size over the ${mib(limits.maxUnpackedBytes)} cap (decompression bomb)` })
      }
      yield chunk
    }
  }

type TarModule = typeof import("tar")
type TarStream = { write: (chunk: Buffer) => boolean; end: () => unknown; on: (event: string, listener: (...args: Array<any>) => void) => unknown } // eslint-disable-line @typescript-eslint/no-explicit-any

/** Why the sink stopped taking bytes: the caller's finding or the tar stream's error, reported after it has ended. */
const STOPPED = new Error("stopped")

/**
 * Streams the tarball (gunzipped when gzipped, counted against the cap) into a
 * node-tar stream until it ends or something was refused; `stop()` returns the
 * first finding of the caller's checks and is asked before every chunk, after
 * `beside` has seen it. node-tar's streams are not Node streams, so the pipeline
 * ends in a Writable that feeds one. The tar stream is always ended and waited
 * for, so no write is still pending when the caller discards staging.
 */
const pump = async (tarball: Buffer, limits: ArchiveLimits, stream: TarStream, stop: () => Finding | undefined, beside?: (chunk: Buffer) => void): Promise<void> => {
  const gzipped = tarball.length >= 2 && tarball[0] === 0x1f && tarball[1] === 0x8b
  if (!gzipped && tarball.length > limits.maxUnpackedBytes) throw refused({ entry: "(the archive)", rule: `unpacked size over the ${mib(limits.maxUnpackedBytes)} cap` })
  let failure: Error | undefined
  stream.on("error", (error: Error) => {
    failure ??= error
  })
  // 'end' comes after the last file is written (Unpack) or the last entry read (Parser).
  const finished = new Promise<void>((resolve) => {
    stream.on("close", () => resolve())
    stream.on("end", () => resolve())
    stream.on("error", () => void setTimeout(resolve, 250))
  })
  const sink = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      beside?.(chunk)
      if (stop() !== undefined || failure !== undefined) return done(STOPPED)
      if (stream.write(chunk) || failure !== undefined) return done()
      void Promise.race([once(stream as never, "drain"), finished]).then(() => done(), () => done())
    },
    final: (done) => {
      try {
        stream.end()
      } catch {
        // an aborted parser may refuse more input; its error is reported below
      }
      void finished.then(() => done())
    }
  })
  let gzipError: Error | undefined
  let thrown: unknown
  try {
    if (gzipped) {
      const gunzip = createGunzip({ chunkSize: 64 * 1024 }).once("error", (error: Error) => void (gzipError = error))
      await pipeline(Readable.from([tarball]), gunzip, capped(limits), sink)
    } else {
      await pipeline(Readable.from([tarball]), capped(limits), sink)
    }
  } catch (error) {
    if (error !== STOPPED) thrown = error
  }
  if (thrown !== undefined || stop() !== undefined || failure !== undefined) {
    try {
      stream.end()
    } catch {
      // an aborted parser may refuse more input; it is done either way
    }
    await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 2_000))])
  }
  if (thrown instanceof NpmProblem) throw thrown
  // pipeline destroys gunzip with whatever failed first, so only an error of its own is a gzip problem.
  if (thrown !== undefined && thrown === gzipError) throw refused({ entry: "(the archive)", rule: `not a valid gzip stream (${gzipError.message})` })
  if (thrown !== undefined) throw thrown
  const finding = stop()
  if (finding !== undefined) throw refused(finding)
  if (failure !== undefined) throw refused({ entry: "(the archive)", rule: `not a valid tar archive (${failure.message})` })
}

/** Pass 1: validate everything, write nothing. */
const validate = async (tar: TarModule, tarball: Buffer, limits: ArchiveLimits): Promise<void> => {
  const rules = new EntryRules(limits)
  const audit = new TarHeaderAudit()
  let finding: Finding | undefined
  let seen = 0
  const parser = new tar.Parser({
    strict: true,
    onReadEntry: (entry) => {
      seen++
      finding ??= rules.check(entry)
      entry.resume()
    }
  })
  // Unknown types and oversized meta headers are skipped by node-tar without an 'entry' event.
  parser.on("ignoredEntry", (entry: { path: string; type: string }) => {
    finding ??= { entry: JSON.stringify(entry.path), rule: `unsupported or oversized entry (${entry.type})` }
  })
  await pump(tarball, limits, parser as unknown as TarStream, () => audit.result ?? finding, (chunk) => audit.write(chunk))
  if (audit.result === undefined && finding === undefined && audit.entries !== seen) {
    throw refused({ entry: "(the archive)", rule: `ambiguous tar headers (${audit.entries} entries by header, ${seen} as read)` })
  }
}

/** Pass 2: extract into `staging` with the leading folder stripped. */
const extract = async (tar: TarModule, tarball: Buffer, limits: ArchiveLimits, staging: string): Promise<void> => {
  const rules = new EntryRules(limits)
  let finding: Finding | undefined
  const unpack = new tar.Unpack({
    cwd: staging,
    strict: true,
    strip: 1,
    preserveOwner: false,
    preservePaths: false,
    unlink: false,
    // npm pack stamps every file 1985-10-26: keeping that would let an incremental
    // reindex (mtime + size) take a new version's changed file for the old one.
    noMtime: true,
    filter: (_path, entry) => {
      if (!("type" in entry)) return false
      finding ??= rules.check(entry)
      if (finding !== undefined) return false
      entry.mode = entry.type === "Directory" ? 0o755 : 0o644
      return true
    }
  })
  await pump(tarball, limits, unpack as unknown as TarStream, () => finding)
}

/**
 * After extraction: only regular files and folders may exist; modes are set
 * exactly (the umask could have left less, nothing may have more).
 */
const settle = (root: string): void => {
  const walk = (dir: string): void => {
    for (const name of fs.readdirSync(dir)) {
      const full = path.join(dir, name)
      const stat = fs.lstatSync(full)
      if (stat.isDirectory()) {
        fs.chmodSync(full, 0o755)
        walk(full)
      } else if (stat.isFile()) {
        fs.chmodSync(full, 0o644)
      } else {
        throw refused({ entry: JSON.stringify(path.relative(root, full)), rule: "not a regular file or folder after extraction" })
      }
    }
  }
  walk(root)
  fs.chmodSync(root, 0o755)
}

/**
 * Validates the whole tarball, then extracts it into `staging` (which must be
 * empty). On a refusal nothing was written by pass 1; the caller discards
 * `staging` for any failure of pass 2.
 */
export const extractTarball = async (tarball: Buffer, staging: string, limits: ArchiveLimits = defaultArchiveLimits): Promise<void> => {
  const tar = await import("tar")
  await validate(tar, tarball, limits)
  await extract(tar, tarball, limits, staging)
  settle(staging)
}
