import { FileSystem } from "@effect/platform/FileSystem"
import * as path from "node:path"
import { Effect, Either } from "effect"
import { Conflict, NotFound, UsageError, WorkspaceUnavailable } from "../../domain/Errors.js"
import { gateConfig, type ImproveRecipe } from "../../domain/Improve.js"
import { PACKET_MANIFEST, PACKET_OUT, type PacketManifest } from "../../domain/Packet.js"
import { autoApplyPolicy, shortId, type ChangeClass } from "../../domain/Proposal.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { EvidenceStore } from "../../services/EvidenceStore.js"
import type { CandidateFile } from "../../services/Generator.js"
import type { SubmitResult } from "../../services/Improve.js"
import { ImproveStore } from "../../services/ImproveStore.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { now } from "../proposals/lookup.js"
import { resolveBundle } from "../scan.js"
import { finishAttempt } from "./finish.js"
import { takeSnapshot } from "./sandbox.js"
import { verifyCandidate, type VerifyTarget } from "./verify.js"
import { UsageLog } from "../../services/UsageLog.js"
import { PAST_QUERIES } from "../../domain/Improve.js"
import { submitConsolidationPacket } from "../memory/submitPacket.js"

const PACKET_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/
/** An agent's candidate file larger than this is refused before it is read. */
const MAX_OUT_BYTES = 1024 * 1024

const unreadable = (file: string, reason: string) => new WorkspaceUnavailable({ path: file, reason, hint: "check the packet directory; `akm improve` writes a fresh packet on its next run" })

const readManifest = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const text = yield* fs.readFileString(file).pipe(Effect.mapError(() => unreadable(file, "the packet manifest cannot be read")))
    const parsed = yield* Effect.try({ try: () => JSON.parse(text) as PacketManifest, catch: () => unreadable(file, "the packet manifest is not JSON") })
    const valid = typeof parsed === "object" && parsed !== null && parsed.version === 1 && typeof parsed.bundle === "string" && typeof parsed.fingerprint === "string" &&
      Array.isArray(parsed.targets) && Array.isArray(parsed.allowedPaths) && Array.isArray(parsed.evidenceIds)
    if (!valid) return yield* unreadable(file, "the packet manifest is not a version-1 packet")
    return parsed
  })

/** The candidate files under out/: bundle-relative paths (POSIX), UTF-8 text. */
const readOut = (dir: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const names = yield* fs.readDirectory(dir, { recursive: true }).pipe(Effect.mapError(() => unreadable(dir, "the packet's out/ directory cannot be read")))
    const files: Array<CandidateFile> = []
    for (const name of [...names].sort()) {
      const full = path.join(dir, name)
      const info = yield* fs.stat(full).pipe(Effect.mapError(() => unreadable(full, "cannot be read")))
      if (info.type !== "File") continue
      if (Number(info.size) > MAX_OUT_BYTES) return yield* new UsageError({ message: `${full} is ${info.size} bytes; a candidate file may have at most ${MAX_OUT_BYTES}`, hint: "write the item's text only" })
      files.push({ path: name.split(path.sep).join("/"), content: yield* fs.readFileString(full).pipe(Effect.mapError(() => unreadable(full, "is not UTF-8 text"))) })
    }
    return files
  })

/** The packet is done: its manifest names the proposal it became (0600). */
const markSubmitted = (manifestFile: string, manifest: PacketManifest, proposalId: string) =>
  Effect.flatMap(FileSystem, (fs) => {
    const marked: PacketManifest = { ...manifest, status: "submitted", proposalId }
    return fs.writeFileString(manifestFile, `${JSON.stringify(marked, null, 2)}\n`, { mode: 0o600 }).pipe(Effect.mapError(() => unreadable(manifestFile, "cannot be updated")))
  })

/**
 * `akm proposal submit <packet-id>`: the candidate files an agent wrote into
 * a work packet's out/ (or `dir`) are verified exactly as a model's (Level 1
 * and 2 against a fresh snapshot, spec 06 §5) and, when they pass, become a
 * proposal with the packet's fingerprint; the packet is marked submitted.
 * A target changed since the packet was written is refused (its before-hash).
 */
export const improveSubmit = Effect.fn("improve.submit")(function* (packetId: string, dir?: string) {
  if (!PACKET_ID.test(packetId)) return yield* new UsageError({ message: `'${packetId}' is not a packet id`, hint: "use the id `akm improve` printed (the name of a directory under $AKM_DATA_DIR/packets/)" })
  const fs = yield* FileSystem
  const workspace = yield* WorkspaceConfig
  const root = path.join(workspace.paths.packetsDir, packetId)
  const manifestFile = path.join(root, PACKET_MANIFEST)
  if (!(yield* fs.exists(manifestFile).pipe(Effect.orElseSucceed(() => false)))) {
    return yield* new NotFound({ what: "packet", name: packetId, message: `no work packet '${packetId}'`, hint: "list the packets under $AKM_DATA_DIR/packets/, or run `akm improve` with the agent generator" })
  }
  const manifest = yield* readManifest(manifestFile)
  if (manifest.status === "submitted") {
    return yield* new Conflict({ message: `packet ${packetId} was already submitted${manifest.proposalId === undefined ? "" : ` as proposal ${shortId(manifest.proposalId)}`}`, hint: "see `akm proposal list`" })
  }
  const recipe = manifest.recipe as ImproveRecipe | "consolidate"
  if (recipe === "consolidate") {
    // A memory consolidation (`akm memory consolidate` with the agent generator): the claim check decides, not the gate.
    const result = yield* submitConsolidationPacket(packetId, manifest, yield* readOut(dir ?? path.join(root, PACKET_OUT)))
    if (result.proposalId !== undefined) yield* markSubmitted(manifestFile, manifest, result.proposalId)
    return result
  }
  if (recipe !== "revise" && recipe !== "learn") return yield* new UsageError({ message: `packet ${packetId} is a ${manifest.recipe} packet, which submit does not take`, hint: "submit revise, learn and consolidate packets" })
  const files = yield* readOut(dir ?? path.join(root, PACKET_OUT))
  const { info, adapter } = yield* resolveBundle(manifest.bundle)
  if (!info.writable) return yield* new Conflict({ message: `bundle '${info.name}' is read-only`, hint: "the packet's bundle must be writable; nothing was written" })
  const bundleFiles = yield* BundleFiles
  const targets: Array<VerifyTarget> = []
  for (const t of manifest.targets) {
    if (t.beforeHash === null) {
      targets.push({ path: t.path, before: null, beforeHash: null, ref: t.ref })
      continue
    }
    const text = yield* Effect.either(bundleFiles.readText(info.root, t.path))
    const hash = yield* Effect.either(bundleFiles.hash(info.root, [t.path]))
    if (Either.isLeft(text) || Either.isLeft(hash) || hash.right.hash !== t.beforeHash) {
      return yield* new Conflict({ message: `${info.name}//${t.path} changed since packet ${packetId} was written`, hint: "run `akm improve` again for a fresh packet; nothing was written" })
    }
    const pastQueries = t.ref === undefined ? [] : yield* (yield* UsageLog).queriesReturning(t.ref, PAST_QUERIES)
    targets.push({ path: t.path, before: text.right, beforeHash: t.beforeHash, ref: t.ref, pastQueries })
  }
  const config = yield* workspace.read
  const gate = gateConfig(config.improve)
  const autoApply = autoApplyPolicy(config.policy)
  if ("reason" in gate || "reason" in autoApply) return yield* new UsageError({ message: "improve.gate or policy.autoApply in config.yaml is invalid", hint: "run `akm improve --dry-run` to see which" })
  const evidence = yield* (yield* EvidenceStore).get(manifest.evidenceIds)
  const snapshot = yield* takeSnapshot()
  const verification = yield* verifyCandidate({ recipe, info, adapter, targets, allowedPaths: manifest.allowedPaths, files, evidence, gate, snapshot })
  const target = targets[0]?.ref ?? `${info.name}: packet ${packetId}`
  const title = recipe === "revise" ? `Revise ${target} (agent packet ${packetId})` : `Learn in ${info.name} (agent packet ${packetId})`
  const finished = yield* finishAttempt({ recipe, title, fingerprint: manifest.fingerprint, evidence, verification, autoApply: autoApply as ReadonlyArray<ChangeClass> })
  yield* (yield* ImproveStore).recordAttempt({
    runId: manifest.runId ?? `packet:${packetId}`,
    fingerprint: manifest.fingerprint,
    recipe,
    target,
    outcome: finished.outcome,
    reason: finished.reason,
    proposalId: finished.proposalId,
    at: yield* now
  })
  if (finished.proposalId !== undefined) yield* markSubmitted(manifestFile, manifest, finished.proposalId)
  return {
    packetId,
    outcome: finished.outcome,
    ...(finished.proposalId === undefined ? {} : { proposalId: finished.proposalId }),
    failures: finished.failures,
    metrics: finished.metrics
  } satisfies SubmitResult as SubmitResult
})
