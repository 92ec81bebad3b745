import { hash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, FiberRef, Layer, Option } from "effect"
import ignore, { type Ignore } from "ignore"
import { FileUnreadable, type BundleInfo, type FileMeta, type ProbeContext, type ValidateContext } from "../../domain/Adapter.js"
import type { Diagnostic } from "../../domain/Diagnostic.js"
import { sha256Hex } from "../../domain/Digest.js"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import type { FileChange } from "../../domain/FileChange.js"
import { decodeUtf8 } from "../../domain/Utf8.js"
import { EventLoopSlicing, nextSlice, sliceSpent } from "../../domain/EventLoopSlice.js"
import { BundleFiles, SharedWalks, sharedWalkKey, type ContentHash, type WalkOptions, type WalkResult } from "../../services/BundleFiles.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"

/** Files above this are never listed or read (spec 03 §1.1). */
export const MAX_FILE_BYTES = 10 * 1024 * 1024
/** A probe reads at most this much of one file (R-AD-6: bounded). */
const PROBE_MAX_BYTES = 1024 * 1024
/** A probe's `find` visits at most this many directory entries. */
const PROBE_MAX_ENTRIES = 5_000
/** A probe's `find` descends at most this many directories (evidence for detection lies near the top; R-AD-6). */
const PROBE_MAX_DEPTH = 64
/** A walk lists at most this many files, so a pathological tree (symlink fan-out) still ends. */
const MAX_WALK_FILES = 250_000

const ALWAYS_SKIPPED = new Set([".git", "node_modules"])

const inside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code

const unavailable = (root: string, cause: unknown) =>
  new WorkspaceUnavailable({ path: root, reason: cause instanceof Error ? cause.message : String(cause), hint: "check that the bundle folder exists and is readable" })

/** A bundle-relative path an adapter or a probe may ask for: no absolute paths, no `..`, no NUL. */
const safeRelative = (relative: string): string | undefined => {
  const p = relative.replaceAll("\\", "/").normalize("NFC").replace(/\/+$/, "")
  if (p === "" || p.includes("\0") || p.startsWith("/") || /^[A-Za-z]:/.test(p)) return undefined
  return p.split("/").some((s) => s === "" || s === "." || s === "..") ? undefined : p
}

/**
 * The on-disk path of a bundle-relative NFC path. Names are listed in NFC; a
 * file stored in NFD on disk is found by comparing normalised names segment
 * by segment when the direct path does not exist.
 */
const resolveOnDisk = (root: string, relative: string): string | undefined => {
  const direct = path.join(root, relative)
  if (fs.existsSync(direct)) return direct
  let current = root
  for (const segment of relative.split("/")) {
    const candidate = path.join(current, segment)
    if (fs.existsSync(candidate)) {
      current = candidate
      continue
    }
    let names: Array<string>
    try {
      names = fs.readdirSync(current).sort()
    } catch {
      return undefined
    }
    const match = names.find((name) => name.normalize("NFC") === segment)
    if (match === undefined) return undefined
    current = path.join(current, match)
  }
  return current
}

/** The real path of an on-disk path when it lies inside the real root, else undefined (R-AD-4). */
const containedRealPath = (realRoot: string, onDisk: string): string | undefined => {
  try {
    const real = fs.realpathSync(onDisk)
    return inside(real, realRoot) ? real : undefined
  } catch {
    return undefined
  }
}

/** The real path of a path that exists and resolves inside the real root, else undefined (the caller then takes the slow path). */
const realPathIfInside = (realRoot: string, onDisk: string): string | undefined => {
  try {
    const real = fs.realpathSync.native(onDisk)
    return inside(real, realRoot) ? real : undefined
  } catch {
    return undefined
  }
}

/** Decodes bytes as text: refuses NUL bytes (binary) and invalid UTF-8. */
const decodeText = (relative: string, bytes: Uint8Array): string | FileUnreadable => {
  if (bytes.indexOf(0) !== -1) return new FileUnreadable(relative, "binary", `${relative} is binary (it contains NUL bytes)`)
  return decodeUtf8(bytes) ?? new FileUnreadable(relative, "invalid-encoding", `${relative} is not valid UTF-8 text`)
}

const tooLarge = (relative: string, size: number) =>
  new FileUnreadable(relative, "too-large", `${relative} is ${size} bytes, over the ${MAX_FILE_BYTES}-byte limit`)

/** Reads a regular file with a size guard; the descriptor's own stat decides (no race with a swap). */
const readBounded = (onDisk: string, relative: string, max: number): Uint8Array | FileUnreadable => {
  let fd: number
  try {
    fd = fs.openSync(onDisk, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  } catch (error) {
    return errorCode(error) === "ENOENT"
      ? new FileUnreadable(relative, "missing", `${relative} does not exist`)
      : new FileUnreadable(relative, "unreadable", `${relative} cannot be read: ${errorCode(error) ?? String(error)}`)
  }
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) return new FileUnreadable(relative, "unreadable", `${relative} is not a regular file`)
    if (stat.size > max) return tooLarge(relative, stat.size)
    return fs.readFileSync(fd)
  } catch (error) {
    return new FileUnreadable(relative, "unreadable", `${relative} cannot be read: ${errorCode(error) ?? String(error)}`)
  } finally {
    fs.closeSync(fd)
  }
}

// --- walk -------------------------------------------------------------------------------

interface Matcher {
  /** Directory of the .gitignore, bundle-relative ("" for the root). */
  readonly base: string
  readonly rules: Ignore
}

/**
 * The .gitignore of a directory being listed. A plain file lies inside the
 * directory, which lies inside the root, so no realpath is needed (a JS
 * realpath lstat-s every ancestor: cubic on a deep tree); a symbolic link is
 * resolved and must stay inside the root (R-AD-4).
 */
const readGitignore = (realRoot: string, dir: string, base: string): Matcher | undefined => {
  const onDisk = path.join(dir, ".gitignore")
  let file: string | undefined = onDisk
  try {
    if (fs.lstatSync(onDisk).isSymbolicLink()) file = containedRealPath(realRoot, onDisk)
  } catch {
    return undefined
  }
  if (file === undefined) return undefined
  const bytes = readBounded(file, `${base === "" ? "" : `${base}/`}.gitignore`, PROBE_MAX_BYTES)
  if (bytes instanceof FileUnreadable) return undefined
  const text = decodeText(".gitignore", bytes)
  return typeof text === "string" ? { base, rules: ignore().add(text) } : undefined
}

/** Git's rule: the deepest .gitignore that has an opinion decides; negations re-include. */
const isIgnored = (matchers: ReadonlyArray<Matcher>, relative: string, isDirectory: boolean): boolean => {
  let ignored = false
  for (const matcher of matchers) {
    const local = matcher.base === "" ? relative : relative.slice(matcher.base.length + 1)
    try {
      const verdict = matcher.rules.test(isDirectory ? `${local}/` : local)
      if (verdict.ignored) ignored = true
      else if (verdict.unignored) ignored = false
    } catch {
      // `ignore` rejects some path shapes (e.g. names ending in spaces are fine, odd ones throw); such a path is not ignored.
    }
  }
  return ignored
}

interface Frame {
  readonly onDisk: string
  /** The directory's real path (differs from onDisk below a followed symlink). */
  readonly real: string
  readonly relative: string
  /** Directories between the root (0) and this one. */
  readonly depth: number
  /** Real paths of this directory and its ancestors, to detect symlink loops; shared with the parent (nothing copied per level). */
  readonly chain: Chain
  /** The .gitignore files of the ancestors; the directory's own is added when it is listed. */
  readonly matchers: ReadonlyArray<Matcher>
}

/** Whether `real` is the real path of `frame` or one of its ancestors: a symlink there would loop. */
interface Chain {
  readonly real: string
  readonly up: Chain | undefined
}

const onChain = (chain: Chain | undefined, real: string): boolean => {
  for (let c = chain; c !== undefined; c = c.up) if (c.real === real) return true
  return false
}

/**
 * A child path by concatenation: no normalising pass over a long parent path
 * (path.join is linear in it), and V8 keeps the result as a rope until used.
 */
const child = (dir: string, name: string) => (dir.endsWith(path.sep) ? `${dir}${name}` : `${dir}${path.sep}${name}`)

/** How deep a walk goes unless `index.maxDepth` says otherwise (spec 03 §1.1). */
export const DEFAULT_MAX_DEPTH = 64

/**
 * Linear in the number of directories and entries: nothing is recomputed per
 * ancestor (a deep tree used to take cubic time in .gitignore lookups and
 * loop detection). A generator that pauses before each directory and every
 * 32 entries, so the walk can let the event loop turn (`walkTree`).
 */
function* walkSteps(root: string, options: WalkOptions, maxDepth: number): Generator<void, WalkResult, void> {
  const realRoot = fs.realpathSync(root)
  if (!fs.statSync(realRoot).isDirectory()) throw new Error(`${root} is not a directory`)
  const files = new Map<string, FileMeta>()
  const diagnostics: Array<Diagnostic> = []
  const warn = (code: string, relative: string, message: string, severity: Diagnostic["severity"] = "warning") =>
    diagnostics.push({ code, severity, path: relative, message })
  const stack: Array<Frame> = [{ onDisk: realRoot, real: realRoot, relative: "", depth: 0, chain: { real: realRoot, up: undefined }, matchers: [] }]
  let truncated = false
  let seen = 0

  while (stack.length > 0 && !truncated) {
    yield
    const listed = stack.pop()!
    let entries: Array<fs.Dirent>
    try {
      entries = fs.readdirSync(listed.onDisk, { withFileTypes: true })
    } catch (error) {
      warn("unreadable-directory", listed.relative === "" ? "." : listed.relative, `cannot read directory: ${errorCode(error) ?? String(error)}`)
      continue
    }
    const own = entries.some((entry) => entry.name === ".gitignore") ? readGitignore(realRoot, listed.onDisk, listed.relative) : undefined
    const frame = own === undefined ? listed : { ...listed, matchers: [...listed.matchers, own] }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const subdirs: Array<Frame> = []
    const rawNames = new Map<string, string>()
    for (const entry of entries) {
      // A pause every 32 entries too: one directory can hold thousands of files.
      if ((++seen & 31) === 0) yield
      const name = entry.name
      if (ALWAYS_SKIPPED.has(name)) continue
      if (!options.includeHidden && name.startsWith(".")) continue
      const normalized = name.normalize("NFC")
      const relative = frame.relative === "" ? normalized : `${frame.relative}/${normalized}`
      const onDisk = child(frame.onDisk, name)
      // A plain directory needs no stat (the directory entry says what it is): one system call fewer per directory.
      let stat: fs.Stats | undefined
      const isLink = entry.isSymbolicLink()
      if (isLink || !entry.isDirectory()) {
        try {
          stat = isLink ? fs.statSync(onDisk) : fs.lstatSync(onDisk)
        } catch (error) {
          const code = errorCode(error)
          if (code === "ELOOP") warn("symlink-loop", relative, "symbolic link loop; skipped")
          else if (isLink) warn("broken-symlink", relative, "symbolic link to a missing target; skipped", "info")
          else warn("unreadable-file", relative, `cannot read: ${code ?? String(error)}`)
          continue
        }
      }
      const isDirectory = stat === undefined || stat.isDirectory()
      if (isIgnored(frame.matchers, relative, isDirectory)) continue
      let real = child(frame.real, name)
      if (isLink) {
        try {
          real = fs.realpathSync.native(onDisk)
        } catch (error) {
          warn(errorCode(error) === "ELOOP" ? "symlink-loop" : "broken-symlink", relative, "symbolic link cannot be resolved; skipped")
          continue
        }
        if (!inside(real, realRoot)) {
          warn("symlink-escape", relative, "symbolic link resolves outside the bundle root; not followed")
          continue
        }
      }
      // Twins under normalisation are siblings: the raw names of this one directory suffice.
      const twin = rawNames.get(normalized)
      if (twin !== undefined) {
        warn("case-collision", relative, `'${JSON.stringify(name).slice(1, -1)}' and '${JSON.stringify(twin).slice(1, -1)}' are the same name under Unicode normalisation (NFC/NFD); only the first is read`)
        continue
      }
      if (isDirectory) {
        // Only a followed symlink can lead back up the tree.
        if (isLink && onChain(frame.chain, real)) {
          warn("symlink-loop", relative, "symbolic link points back to one of its own parent directories; not followed")
          continue
        }
        rawNames.set(normalized, name)
        if (frame.depth + 1 > maxDepth) {
          warn("too-deep", relative, `directory nesting deeper than index.maxDepth (${maxDepth}); not entered`)
          continue
        }
        subdirs.push({ onDisk, real, relative, depth: frame.depth + 1, chain: { real, up: frame.chain }, matchers: frame.matchers })
      } else if (stat?.isFile() === true) {
        rawNames.set(normalized, name)
        if (stat.size > MAX_FILE_BYTES) {
          warn("file-too-large", relative, `${stat.size} bytes is over the ${MAX_FILE_BYTES}-byte limit; not indexed`)
          continue
        }
        if (files.size >= MAX_WALK_FILES) {
          warn("too-many-files", ".", `the walk stopped after ${MAX_WALK_FILES} files`)
          truncated = true
          break
        }
        // A link is what it points at: adapters must not read a linked env file as knowledge.
        // Below the root with no link on the way, the real path is the listed one: no path arithmetic per file.
        const target = !isLink && frame.real === frame.onDisk ? relative : path.relative(realRoot, real).split(path.sep).join("/").normalize("NFC")
        files.set(relative, { path: relative, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs), ...(target === relative ? {} : { linkedTo: target }) })
      } else {
        warn("special-file", relative, "not a regular file (device, socket or pipe); skipped", "info")
      }
    }
    // Depth-first, in name order; the result is sorted at the end anyway.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!)
  }
  const sorted = [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return { files: sorted, diagnostics }
}

/**
 * The walk as an Effect that lets the event loop turn whenever a slice is
 * spent (issue 28 item 4, decision 0048): 5,000 files took 20–60 ms of
 * readdir/lstat in one piece, which an MCP server's other requests and
 * timers waited out. The pauses change no answer: the result is the same.
 */
const walkTree = (root: string, options: WalkOptions, maxDepth: number): Effect.Effect<WalkResult, WorkspaceUnavailable> =>
  FiberRef.getWith(EventLoopSlicing, (slice) => {
    let steps: Generator<void, WalkResult, void> | undefined
    const run = (): Effect.Effect<WalkResult, WorkspaceUnavailable> =>
      Effect.flatMap(
        Effect.try({
          try: () => {
            steps ??= walkSteps(root, options, maxDepth)
            for (;;) {
              const step = steps.next()
              if (step.done === true) return step.value
              if (slice !== undefined && sliceSpent(slice)) return undefined
            }
          },
          catch: (cause) => unavailable(root, cause)
        }),
        (result) => (result !== undefined ? Effect.succeed(result) : Effect.zipRight(nextSlice, Effect.suspend(run)))
      )
    return run()
  })

/** The depth limit each walk was taken with, so a relisting applies the same one. */
const walkDepths = new WeakMap<WalkResult, number>()

const byPath = (a: FileMeta, b: FileMeta) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)

/** BundleFiles.stillListed: a listing's files and missing paths stat-ed again (a linked file is never confirmed). */
const stillListed = (root: string, files: ReadonlyArray<FileMeta>, absent: ReadonlyArray<string>): boolean => {
  const statOf = (relative: string): fs.Stats | undefined => {
    try {
      return fs.lstatSync(path.join(root, ...relative.split("/")))
    } catch (error) {
      if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return undefined
      throw error
    }
  }
  try {
    for (const f of files) {
      const stat = statOf(f.path)
      if (f.linkedTo !== undefined || stat === undefined || !stat.isFile() || stat.size !== f.size || Math.trunc(stat.mtimeMs) !== f.mtimeMs) return false
    }
    return absent.every((p) => statOf(p) === undefined)
  } catch {
    return false
  }
}

/**
 * BundleFiles.relist: `walked` with `paths` (just written or deleted by this
 * process under the lease) stat-ed again, the same answer a new walk gives
 * when nothing else changed (decision 0038). Undefined for anything the walk
 * judges beyond one file's stat — a .gitignore written, a hidden, linked,
 * oversized or special file, a link on the way, a name the walk reported
 * on, a Unicode twin — so the caller walks.
 */
const relistTree = (root: string, _options: WalkOptions, walked: WalkResult, paths: ReadonlyArray<string>): WalkResult | undefined => {
  const maxDepth = walkDepths.get(walked)
  if (maxDepth === undefined) return undefined
  const realRoot = fs.realpathSync(root)
  const files = new Map(walked.files.map((f) => [f.path, f] as const))
  for (const written of paths) {
    const relative = written.normalize("NFC")
    const parts = relative.split("/")
    if (relative !== written || parts.some((p) => p === "" || p === "." || p === ".." || p.startsWith(".") || ALWAYS_SKIPPED.has(p))) return undefined
    if (parts.length - 1 > maxDepth) return undefined
    if (walked.diagnostics.some((d) => d.path === relative || d.path === "." || relative.startsWith(`${d.path}/`))) return undefined
    const onDisk = path.join(realRoot, ...parts)
    let stat: fs.Stats | undefined
    try {
      stat = fs.lstatSync(onDisk)
    } catch (error) {
      if (errorCode(error) !== "ENOENT") return undefined
    }
    if (stat === undefined) {
      files.delete(relative)
      continue
    }
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined
    // No link on the way: the real path is the listed one.
    if (fs.realpathSync.native(onDisk) !== onDisk) return undefined
    if (!files.has(relative)) {
      // A new name: its directory may hold a Unicode twin, and .gitignore rules may hide it or a directory on its way.
      const dir = path.dirname(onDisk)
      const name = parts[parts.length - 1]!
      if (fs.readdirSync(dir).some((n) => n !== name && n.normalize("NFC") === name)) return undefined
      const matchers: Array<Matcher> = []
      for (let depth = 0; depth < parts.length; depth++) {
        const base = parts.slice(0, depth).join("/")
        if (depth > 0 && isIgnored(matchers, base, true)) return undefined
        const own = readGitignore(realRoot, path.join(realRoot, ...parts.slice(0, depth)), base)
        if (own !== undefined) matchers.push(own)
      }
      if (isIgnored(matchers, relative, false)) continue
      if (files.size >= MAX_WALK_FILES) return undefined
    }
    files.set(relative, { path: relative, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) })
  }
  const result = { files: [...files.values()].sort(byPath), diagnostics: walked.diagnostics }
  walkDepths.set(result, maxDepth)
  return result
}

// --- contexts ----------------------------------------------------------------------------

type Overlaid = { readonly kind: "text"; readonly bytes: Uint8Array } | { readonly kind: "deleted" }

const encoder = new TextEncoder()

interface FileDigest {
  readonly digest: Buffer
  readonly size: number
}

const sha256Of = (bytes: Uint8Array): Buffer => hash("sha256", bytes, "buffer")

/** Digests of the on-disk files a context has read, so hashing an item needs no second read (WeakMap: freed with the context). */
const readDigests = new WeakMap<ValidateContext, Map<string, FileDigest>>()

/** Every directory that holds a listed file, bundle-relative ("a", "a/b"). */
const directoriesOf = (files: ReadonlyArray<FileMeta>): ReadonlySet<string> => {
  const dirs = new Set<string>()
  for (const { path: p } of files) {
    for (let at = p.indexOf("/"); at !== -1; at = p.indexOf("/", at + 1)) dirs.add(p.slice(0, at))
  }
  return dirs
}

/** Whether a listing is in strict path order (sorted, no path twice), as a walk's is. */
const inPathOrder = (files: ReadonlyArray<FileMeta>): boolean => {
  for (let i = 1; i < files.length; i++) if (!(files[i - 1]!.path < files[i]!.path)) return false
  return true
}

/** Where `p` is, or would go, in a listing in strict path order. */
const pathIndex = (listed: ReadonlyArray<FileMeta>, p: string): number => {
  let low = 0
  let high = listed.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (listed[mid]!.path < p) low = mid + 1
    else high = mid
  }
  return low
}

/** The listed file at `p` (binary search: a context over 20,000 files builds no map of them). */
const fileAt = (listed: ReadonlyArray<FileMeta>, p: string): FileMeta | undefined => {
  const at = pathIndex(listed, p)
  return at < listed.length && listed[at]!.path === p ? listed[at] : undefined
}

const makeContext = (bundle: BundleInfo, files: ReadonlyArray<FileMeta>, overlay: ReadonlyArray<FileChange> = []): ValidateContext => {
  // In strict path order; a walk's listing already is, and is taken as it is when nothing is laid over it.
  const base = inPathOrder(files) ? files : [...new Map(files.map((f) => [f.path, f] as const)).values()].sort(byPath)
  const listed: Array<FileMeta> | ReadonlyArray<FileMeta> = overlay.length === 0 ? base : [...base]
  const pending = new Map<string, Overlaid>()
  for (const change of overlay) {
    const p = change.path.normalize("NFC")
    const at = pathIndex(listed, p)
    const was = at < listed.length && listed[at]!.path === p ? listed[at] : undefined
    if (change.delete === true) {
      pending.set(p, { kind: "deleted" })
      if (was !== undefined) (listed as Array<FileMeta>).splice(at, 1)
    } else if (change.after !== undefined) {
      const bytes = typeof change.after === "string" ? encoder.encode(change.after) : change.after
      pending.set(p, { kind: "text", bytes })
      const written = { path: p, size: bytes.byteLength, mtimeMs: was?.mtimeMs ?? 0 }
      if (was !== undefined) (listed as Array<FileMeta>)[at] = written
      else (listed as Array<FileMeta>).splice(at, 0, written)
    }
  }
  const has = (p: string) => fileAt(listed, p) !== undefined
  let realRoot: string | undefined
  let directories: ReadonlySet<string> | undefined
  let below: Map<string, Array<string>> | undefined
  const digests = new Map<string, FileDigest>()
  const readText = (requested: string): Effect.Effect<string, FileUnreadable> =>
    Effect.sync(() => {
      const relative = safeRelative(requested)
      if (relative === undefined || !has(relative)) return new FileUnreadable(requested, "missing", `${requested} is not a file of bundle '${bundle.name}'`)
      const override = pending.get(relative)
      if (override?.kind === "text") return override.bytes.byteLength > MAX_FILE_BYTES ? tooLarge(relative, override.bytes.byteLength) : decodeText(relative, override.bytes)
      realRoot ??= fs.realpathSync(bundle.root)
      // The common case in one call: the path as listed exists; else look for it name by name (NFD on disk, R-AD-4 checks).
      let real = realPathIfInside(realRoot, path.join(bundle.root, relative))
      if (real === undefined) {
        const onDisk = resolveOnDisk(bundle.root, relative)
        if (onDisk === undefined) return new FileUnreadable(relative, "missing", `${relative} does not exist`)
        real = containedRealPath(realRoot, onDisk)
        if (real === undefined) return new FileUnreadable(relative, "unreadable", `${relative} resolves outside the bundle root`)
      }
      const bytes = readBounded(real, relative, MAX_FILE_BYTES)
      if (bytes instanceof FileUnreadable) return bytes
      digests.set(relative, { digest: sha256Of(bytes), size: bytes.byteLength })
      return decodeText(relative, bytes)
    }).pipe(
      Effect.catchAllDefect((cause) => Effect.succeed(new FileUnreadable(requested, "unreadable", `${requested} cannot be read: ${String(cause)}`))),
      Effect.flatMap((result) => (typeof result === "string" ? Effect.succeed(result) : Effect.fail(result)))
    )
  const context: ValidateContext = {
    bundle,
    files: listed,
    exists: (requested) => {
      const relative = safeRelative(requested)
      return relative !== undefined && has(relative)
    },
    filesUnder: (requested) => {
      const relative = safeRelative(requested)
      if (relative === undefined) return []
      if (below === undefined) {
        below = new Map()
        for (const { path: p } of listed) {
          for (let at = p.indexOf("/"); at !== -1; at = p.indexOf("/", at + 1)) {
            const dir = p.slice(0, at)
            const list = below.get(dir)
            if (list === undefined) below.set(dir, [p])
            else list.push(p)
          }
        }
      }
      return below.get(relative) ?? []
    },
    isDirectory: (requested) => {
      const relative = safeRelative(requested)
      if (relative === undefined) return false
      directories ??= directoriesOf(listed)
      return directories.has(relative)
    },
    linkTarget: (requested) => {
      const relative = safeRelative(requested)
      return relative === undefined ? undefined : fileAt(listed, relative)?.linkedTo
    },
    readText
  }
  readDigests.set(context, digests)
  return context
}

/** Directory names under the root visited breadth-first in name order, bounded (R-AD-6). */
const makeProbeContext = (root: string): ProbeContext => {
  let realRoot: string | undefined
  try {
    realRoot = fs.realpathSync(root)
  } catch {
    realRoot = undefined
  }
  const locate = (requested: string): { real: string; stat: fs.Stats } | undefined => {
    const relative = safeRelative(requested)
    if (realRoot === undefined || relative === undefined) return undefined
    const onDisk = resolveOnDisk(realRoot, relative)
    const real = onDisk === undefined ? undefined : containedRealPath(realRoot, onDisk)
    if (real === undefined) return undefined
    try {
      return { real, stat: fs.statSync(real) }
    } catch {
      return undefined
    }
  }
  const entries: Array<string> = []
  if (realRoot !== undefined) {
    try {
      for (const name of fs.readdirSync(realRoot).sort()) {
        if (ALWAYS_SKIPPED.has(name)) continue
        const found = locate(name.normalize("NFC"))
        if (found === undefined) continue
        entries.push(found.stat.isDirectory() ? `${name.normalize("NFC")}/` : name.normalize("NFC"))
      }
    } catch {
      // An unreadable root has no entries; detection then falls back.
    }
  }
  const sortedEntries = entries.sort()
  return {
    entries: sortedEntries,
    exists: (p) => Effect.sync(() => locate(p) !== undefined),
    isDirectory: (p) => Effect.sync(() => locate(p)?.stat.isDirectory() === true),
    readText: (p) =>
      Effect.sync(() => {
        const found = locate(p)
        if (found === undefined || !found.stat.isFile()) return undefined
        const bytes = readBounded(found.real, p, PROBE_MAX_BYTES)
        if (bytes instanceof FileUnreadable) return undefined
        const text = decodeText(p, bytes)
        return typeof text === "string" ? text : undefined
      }),
    find: (predicate, limit = 1000) =>
      Effect.sync(() => {
        const found: Array<string> = []
        if (realRoot === undefined) return found
        const queue: Array<{ onDisk: string; relative: string; depth: number }> = [{ onDisk: realRoot, relative: "", depth: 0 }]
        let visited = 0
        while (queue.length > 0 && visited < PROBE_MAX_ENTRIES && found.length < limit) {
          const dir = queue.shift()!
          let dirents: Array<fs.Dirent>
          try {
            dirents = fs.readdirSync(dir.onDisk, { withFileTypes: true })
          } catch {
            continue
          }
          dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          for (const entry of dirents) {
            if (++visited > PROBE_MAX_ENTRIES || found.length >= limit) break
            if (ALWAYS_SKIPPED.has(entry.name)) continue
            const relative = dir.relative === "" ? entry.name.normalize("NFC") : `${dir.relative}/${entry.name.normalize("NFC")}`
            // Symbolic links are not followed by a probe: real files and directories only.
            if (entry.isDirectory()) {
              if (dir.depth < PROBE_MAX_DEPTH) queue.push({ onDisk: path.join(dir.onDisk, entry.name), relative, depth: dir.depth + 1 })
            }
            else if (entry.isFile() && predicate(relative)) found.push(relative)
          }
        }
        return found
      }).pipe(Effect.catchAllDefect(() => Effect.succeed([] as ReadonlyArray<string>)))
  }
}

// --- hash --------------------------------------------------------------------------------

/**
 * One file: sha256 of its bytes (so it equals a FileChange's beforeHash).
 * Several: sha256 over each file's path, size and byte digest, so moving
 * bytes between files changes the hash. Digests a context already took while
 * its adapter read the files are reused instead of reading them again.
 */
const hashFiles = (root: string, paths: ReadonlyArray<string>, known?: ReadonlyMap<string, FileDigest>): ContentHash => {
  let realRoot: string | undefined
  const digestOf = (requested: string): FileDigest & { readonly relative: string } => {
    const relative = safeRelative(requested)
    const cached = relative === undefined ? undefined : known?.get(relative)
    if (cached !== undefined) return { ...cached, relative: relative! }
    realRoot ??= fs.realpathSync(root)
    const onDisk = relative === undefined ? undefined : resolveOnDisk(realRoot, relative)
    const real = onDisk === undefined ? undefined : containedRealPath(realRoot, onDisk)
    if (real === undefined) throw new Error(`${requested} is not a file inside ${root}`)
    const content = readBounded(real, requested, MAX_FILE_BYTES)
    if (content instanceof FileUnreadable) throw new Error(content.message)
    return { digest: sha256Of(content), size: content.byteLength, relative: relative! }
  }
  if (paths.length === 1) {
    const one = digestOf(paths[0]!)
    return { hash: one.digest.toString("hex"), bytes: one.size }
  }
  const parts: Array<string | Uint8Array> = []
  let bytes = 0
  for (const requested of paths) {
    const file = digestOf(requested)
    parts.push(`${file.relative}\0${file.size}\0`, file.digest)
    bytes += file.size
  }
  return { hash: sha256Hex(parts), bytes }
}

/** One file's text by its bundle-relative path, contained in the real root. */
const readContained = (root: string, requested: string): string | FileUnreadable => {
  const relative = safeRelative(requested)
  if (relative === undefined) return new FileUnreadable(requested, "unreadable", `${requested} is not a path inside the bundle`)
  let realRoot: string
  try {
    realRoot = fs.realpathSync(root)
  } catch (error) {
    return new FileUnreadable(relative, "missing", `the bundle root ${root} cannot be read: ${errorCode(error) ?? String(error)}`)
  }
  const onDisk = resolveOnDisk(realRoot, relative)
  if (onDisk === undefined) return new FileUnreadable(relative, "missing", `${relative} does not exist`)
  const real = containedRealPath(realRoot, onDisk)
  if (real === undefined) return new FileUnreadable(relative, "unreadable", `${relative} resolves outside the bundle root`)
  const bytes = readBounded(real, relative, MAX_FILE_BYTES)
  return bytes instanceof FileUnreadable ? bytes : decodeText(relative, bytes)
}

/** `maxDepth`: how deep a walk descends (config.yaml's `index.maxDepth`, read at each walk); default 64. */
export const makeBundleFiles = (maxDepth: Effect.Effect<number> = Effect.succeed(DEFAULT_MAX_DEPTH)): BundleFiles["Type"] =>
  BundleFiles.of({
    walk: (root, options) =>
      Effect.flatMap(FiberRef.get(SharedWalks), (memo) => {
        const walked = Effect.flatMap(maxDepth, (depth) =>
          Effect.tap(walkTree(root, options, depth), (result) => Effect.sync(() => void walkDepths.set(result, depth))))
        if (memo === undefined) return walked
        const key = sharedWalkKey(root, options)
        const shared = memo.get(key)
        return shared !== undefined ? Effect.succeed(shared) : Effect.tap(walked, (result) => Effect.sync(() => void memo.set(key, result)))
      }),
    context: makeContext,
    relist: relistTree,
    stillListed,
    probeContext: makeProbeContext,
    readText: (root, requested) =>
      Effect.suspend(() => {
        const text = readContained(root, requested)
        return typeof text === "string" ? Effect.succeed(text) : Effect.fail(text)
      }),
    hash: (root, paths, ctx) =>
      Effect.try({ try: () => hashFiles(root, paths, ctx === undefined ? undefined : readDigests.get(ctx)), catch: (cause) => unavailable(root, cause) })
  })

/**
 * The core walk on Node's file system (spec 03 §1.1): read-only, gitignore-aware,
 * realpath containment (R-AD-4), size and encoding guards; never writes (R-AD-7).
 */
export const BundleFilesNode = Layer.effect(
  BundleFiles,
  Effect.map(Effect.serviceOption(WorkspaceConfig), (workspace) =>
    makeBundleFiles(
      Option.match(workspace, {
        onNone: () => Effect.succeed(DEFAULT_MAX_DEPTH),
        // An invalid config has failed the command before any walk; the default keeps the walk total.
        onSome: (w) => w.read.pipe(Effect.map((config) => config.index?.maxDepth ?? DEFAULT_MAX_DEPTH), Effect.orElseSucceed(() => DEFAULT_MAX_DEPTH))
      })
    ))
)
