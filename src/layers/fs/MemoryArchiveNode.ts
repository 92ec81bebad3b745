import * as fs from "node:fs"
import { Effect, Layer } from "effect"
import { WorkspaceUnavailable } from "../../domain/Errors.js"
import { MemoryArchive } from "../../services/MemoryArchive.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { blobFile, getBlob, putBlob } from "./transaction/BlobStore.js"

const DIGEST = /^[0-9a-f]{64}$/

/**
 * The memory archive is the workspace's content-addressed blob store, the
 * one the transaction engine keeps replaced bytes in (spec 05 §2 step 7,
 * spec 06 §8.5): `$DATA/archive/blobs/sha256/<aa>/<digest>`, files 0600,
 * folders 0700, every read re-verified against the digest.
 */
export const memoryArchiveAt = (archiveDir: string) => {
  const unavailable = (cause: unknown) =>
    new WorkspaceUnavailable({ path: archiveDir, reason: cause instanceof Error ? cause.message : String(cause), hint: `check that ${archiveDir} is readable and writable by you` })
  const attempt = <A>(f: () => A) => Effect.try({ try: f, catch: unavailable })
  return MemoryArchive.of({
    put: (bytes) => attempt(() => ({ digest: putBlob(archiveDir, bytes), bytes: bytes.byteLength })),
    read: (digest) => attempt(() => getBlob(archiveDir, digest)),
    exists: (digest) => attempt(() => DIGEST.test(digest) && fs.existsSync(blobFile(archiveDir, digest))),
    remove: (digest) => attempt(() => (DIGEST.test(digest) ? fs.rmSync(blobFile(archiveDir, digest), { force: true }) : undefined))
  })
}

export const MemoryArchiveNode = Layer.effect(MemoryArchive, Effect.map(WorkspaceConfig, (workspace) => memoryArchiveAt(workspace.paths.archiveDir)))
