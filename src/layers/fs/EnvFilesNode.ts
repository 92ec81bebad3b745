import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { EnvFiles, ValueUnreadable, type ValueSource } from "../../services/EnvFiles.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { workspaceLease } from "../sqlite/leaseEvents.js"
import { atomicWriteFileSync } from "./atomicWrite.js"
import { withLease } from "./transaction/Lease.js"

const PRIVATE = 0o600

const unavailable = (file: string, reason: string, hint: string) => new WorkspaceUnavailable({ path: file, reason, hint })

const isInside = (root: string, candidate: string): boolean => {
  const rel = path.relative(root, candidate)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

/**
 * The absolute file of a bundle-relative path whose real location lies inside
 * the real root (R-AD-4): an env file linked to somewhere outside the bundle
 * is neither read nor written through.
 */
const containedFile = (root: string, rel: string): string | WorkspaceUnavailable => {
  const segments = rel.split("/")
  if (rel === "" || path.isAbsolute(rel) || segments.some((s) => s === "" || s === "." || s === "..")) {
    return unavailable(rel, "is not a path inside the bundle", "name a file of the bundle by its bundle-relative path")
  }
  const realRoot = fs.realpathSync(root)
  const file = path.join(realRoot, ...segments)
  let probe = file
  // The deepest existing ancestor (or the file itself) decides where a write lands.
  while (!fs.existsSync(probe) && probe !== realRoot) probe = path.dirname(probe)
  const real = fs.realpathSync(probe)
  if (!isInside(realRoot, real)) return unavailable(file, "resolves outside the bundle root", "replace the link with a file inside the bundle")
  return file
}

const attempt = <A>(file: string, what: string, run: () => A): Effect.Effect<A, WorkspaceUnavailable> =>
  Effect.try({ try: run, catch: (cause) => unavailable(file, `cannot ${what}: ${(cause as NodeJS.ErrnoException).code ?? String(cause)}`, "check that the path exists and that you may write there") })

/**
 * A value typed at a terminal: read with echo off, up to Enter, so it shows
 * on no screen and in no scrollback (Ctrl-C or Ctrl-D on an empty line aborts).
 */
const readHidden = (maxBytes: number): Effect.Effect<Uint8Array, ValueUnreadable> =>
  Effect.async<Uint8Array, ValueUnreadable>((resume) => {
    const stdin = process.stdin
    let value = ""
    process.stderr.write("value (hidden; press Enter when done): ")
    const finish = (outcome: Effect.Effect<Uint8Array, ValueUnreadable>) => {
      stdin.off("data", onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write("\n")
      resume(outcome)
    }
    const onData = (chunk: Buffer) => {
      for (const c of chunk.toString("utf8")) {
        if (c === "\r" || c === "\n") return finish(Effect.succeed(Buffer.from(value, "utf8")))
        if (c === "\u0003" || (c === "\u0004" && value === "")) return finish(Effect.fail(new ValueUnreadable("no value was entered; nothing was written", "type the value and press Enter, or pipe it on stdin")))
        if (c === "\u007f" || c === "\b") value = value.slice(0, -1)
        else value += c
        if (Buffer.byteLength(value) > maxBytes) return finish(Effect.succeed(Buffer.from(value, "utf8")))
      }
    }
    stdin.setRawMode(true)
    stdin.resume()
    stdin.on("data", onData)
    return Effect.sync(() => {
      stdin.off("data", onData)
      stdin.setRawMode(false)
      stdin.pause()
    })
  })

const readStdin = (maxBytes: number): Effect.Effect<Uint8Array, ValueUnreadable> =>
  process.stdin.isTTY === true ? readHidden(maxBytes) : Effect.tryPromise({
    try: async () => {
      const chunks: Array<Buffer> = []
      let total = 0
      for await (const chunk of process.stdin) {
        const buffer = chunk as Buffer
        total += buffer.byteLength
        chunks.push(buffer)
        if (total > maxBytes) break
      }
      process.stdin.destroy()
      return Buffer.concat(chunks)
    },
    catch: () => new ValueUnreadable("cannot read the value from stdin", "pipe the value in, e.g. `printf %s \"$TOKEN\" | akm secret set <ref>`")
  })

const readValue = (source: ValueSource, maxBytes: number): Effect.Effect<Uint8Array, ValueUnreadable> => {
  switch (source._tag) {
    case "stdin":
      return readStdin(maxBytes)
    case "env": {
      const value = process.env[source.name]
      return value === undefined
        ? Effect.fail(new ValueUnreadable(`the environment variable ${source.name} is not set`, `export ${source.name} first, or use --from-file or stdin`))
        : Effect.succeed(Buffer.from(value, "utf8"))
    }
    case "file":
      return Effect.try({
        try: () => {
          const size = fs.statSync(source.path).size
          // One byte over the cap is enough to refuse: the rest is never read.
          if (size > maxBytes) return new Uint8Array(maxBytes + 1)
          return fs.readFileSync(source.path)
        },
        catch: (cause) => new ValueUnreadable(`cannot read ${source.path}: ${(cause as NodeJS.ErrnoException).code ?? "unreadable"}`, "name a readable file with --from-file")
      })
  }
}

/** EnvFiles on the local file system; writes take the workspace mutation lease ($DATA/locks/mutation.lease). */
export const EnvFilesNode = Layer.effect(
  EnvFiles,
  Effect.map(WorkspaceConfig, (workspace) => {
    const lease = withLease(workspaceLease(path.join(workspace.paths.locksDir, "mutation.lease"), "the workspace mutation lease", { waitMillis: 30_000, maxAgeMillis: 600_000 }))
    const read = (root: string, rel: string) =>
      Effect.suspend(() => {
        const file = attempt(path.join(root, rel), "resolve the file", () => containedFile(root, rel))
        return Effect.flatMap(file, (f) =>
          f instanceof WorkspaceUnavailable ? Effect.fail(f) : attempt(f, "read the file", () => (fs.existsSync(f) ? new Uint8Array(fs.readFileSync(f)) : undefined)))
      })
    return EnvFiles.of({
      read,
      update: (root, rel, edit) =>
        Effect.zipRight(
          workspace.ensureDirs.pipe(Effect.mapError((e) => unavailable(workspace.paths.locksDir, String(e.message), "check the akm data directory"))),
          lease(
            Effect.gen(function* () {
              const file = yield* attempt(path.join(root, rel), "resolve the file", () => containedFile(root, rel))
              if (file instanceof WorkspaceUnavailable) return yield* file
              const current = yield* attempt(file, "read the file", () => (fs.existsSync(file) ? new Uint8Array(fs.readFileSync(file)) : undefined))
              const next = yield* edit(current)
              yield* attempt(file, "write the file", () => atomicWriteFileSync(file, next, PRIVATE))
              return next
            })
          )
        ),
      writePrivate: (file, bytes) => attempt(file, "write the file", () => atomicWriteFileSync(file, bytes, PRIVATE)),
      readValue
    })
  })
)
