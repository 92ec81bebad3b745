import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { MemoryArchive } from "../../services/MemoryArchive.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"

const DIGEST = /^[0-9a-f]{64}$/

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

/**
 * The archive on disk: `<archiveDir>/blobs/sha256/<digest>`. A blob is
 * written to a temp file (0600) and renamed into place, so a crash never
 * leaves a partial blob under its digest; folders are 0700.
 */
export const memoryArchiveAt = (archiveDir: string) => {
  const dir = path.join(archiveDir, "blobs", "sha256")
  const unavailable = (cause: unknown) =>
    new WorkspaceUnavailable({ path: dir, reason: cause instanceof Error ? cause.message : String(cause), hint: `check that ${dir} is readable and writable by you` })
  const file = (digest: string) => {
    if (!DIGEST.test(digest)) throw new Error(`'${digest}' is not a sha256 digest`)
    return path.join(dir, digest)
  }
  const attempt = <A>(f: () => A) => Effect.try({ try: f, catch: unavailable })
  return MemoryArchive.of({
    put: (bytes) =>
      attempt(() => {
        const digest = sha256(bytes)
        const target = file(digest)
        if (!fs.existsSync(target)) {
          for (const d of [archiveDir, path.join(archiveDir, "blobs"), dir]) {
            fs.mkdirSync(d, { recursive: true, mode: 0o700 })
            fs.chmodSync(d, 0o700)
          }
          const temp = `${target}.${process.pid}.${Date.now()}.tmp`
          const fd = fs.openSync(temp, "wx", 0o600)
          try {
            fs.writeSync(fd, bytes)
            fs.fsyncSync(fd)
          } finally {
            fs.closeSync(fd)
          }
          fs.renameSync(temp, target)
        }
        return { digest, bytes: bytes.byteLength }
      }),
    read: (digest) =>
      attempt(() => {
        const target = file(digest)
        if (!fs.existsSync(target)) return undefined
        const bytes = fs.readFileSync(target)
        return sha256(bytes) === digest ? new Uint8Array(bytes) : undefined
      }),
    exists: (digest) => attempt(() => fs.existsSync(file(digest))),
    remove: (digest) => attempt(() => fs.rmSync(file(digest), { force: true })),
    usage: attempt(() => {
      if (!fs.existsSync(dir)) return { blobs: 0, bytes: 0 }
      let blobs = 0
      let bytes = 0
      for (const name of fs.readdirSync(dir)) {
        if (!DIGEST.test(name)) continue
        blobs++
        bytes += fs.statSync(path.join(dir, name)).size
      }
      return { blobs, bytes }
    })
  })
}

export const MemoryArchiveNode = Layer.effect(MemoryArchive, Effect.map(WorkspaceConfig, (workspace) => memoryArchiveAt(workspace.paths.archiveDir)))
