import * as fs from "node:fs"
import * as path from "node:path"
import picomatch from "picomatch"
import { Clock, Data, Effect, Layer } from "effect"
import { sha256Hex } from "../../domain/Digest.js"
import { GENERATOR_DEFAULTS } from "../../domain/GeneratorConfig.js"
import { PACKET_MANIFEST, PACKET_OUT, PACKET_TASK, type PacketManifest } from "../../domain/Packet.js"
import { Generator, GenerationFailed, type CandidateFile, type GenerationRequest } from "../../services/Generator.js"
import { Redactor } from "../../services/Redactor.js"
import { WorkspaceConfig } from "../../services/WorkspaceConfig.js"
import { requestSections } from "./prompt.js"

/**
 * The `agent` generator (spec 06 §5): no model runs inside akm. generate()
 * writes a work packet — $AKM_DATA_DIR/packets/<id>/ with packet.json (0600),
 * TASK.md and an empty out/ — and the calling agent writes the candidates
 * into out/ and runs `akm proposal submit <id>`, which reads them back with
 * packetCandidates() and evaluates them exactly as a model's.
 */

/** A packet that is missing, malformed or whose out/ cannot be accepted. */
export class PacketError extends Data.TaggedError("PacketError")<{
  readonly id: string
  readonly reason: string
  readonly hint: string
}> {
  override get message(): string {
    return `packet ${this.id}: ${this.reason}`
  }
}

/** One packet per attempt: the same fingerprint finds the packet already written instead of a second one. */
export const packetIdFor = (fingerprint: string): string => `pk-${sha256Hex(fingerprint).slice(0, 16)}`

const validId = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

const packetDir = (packetsDir: string, id: string): Effect.Effect<string, PacketError> =>
  validId.test(id)
    ? Effect.succeed(path.join(packetsDir, id))
    : Effect.fail(new PacketError({ id, reason: "is not a packet id", hint: "use the id akm printed when it wrote the packet (see `ls $AKM_DATA_DIR/packets`)" }))

const ioFailure = (id: string, what: string) => (e: unknown) =>
  new PacketError({ id, reason: `${what}: ${e instanceof Error ? e.message : String(e)}`, hint: "check the packet directory's permissions and free space" })

/** TASK.md: what the agent reads (redacted by the caller before it is written). */
export const taskMarkdown = (id: string, request: GenerationRequest): string =>
  [
    `# Work packet ${id}`,
    "akm asks you (the agent) to write candidate files for one knowledge change. akm will check them (safety and a retrieval evaluation) before anything reaches the bundle.",
    requestSections(request),
    "## What to do",
    [
      `1. Write the complete new content of each file you change to \`out/<path>\` in this directory (${path.posix.join(PACKET_OUT, "<path>")}), with <path> exactly as listed under "Paths you may write".`,
      "2. Write only those paths; no symbolic links; text files only. Files you do not write stay as they are.",
      `3. Then run: \`akm proposal submit ${id}\``
    ].join("\n")
  ].join("\n\n") + "\n"

/** Writes the packet (temp directory, then one rename: never a half-written packet); an existing one is kept. */
export const writePacket = (packetsDir: string, request: GenerationRequest, createdAt: string, task: string): Effect.Effect<{ id: string; dir: string }, PacketError> => {
  const id = packetIdFor(request.fingerprint)
  const dir = path.join(packetsDir, id)
  return Effect.try({
    try: () => {
      if (fs.existsSync(path.join(dir, PACKET_MANIFEST))) return { id, dir }
      fs.mkdirSync(packetsDir, { recursive: true, mode: 0o700 })
      const temp = fs.mkdtempSync(path.join(packetsDir, `.${id}-`))
      const manifest: PacketManifest = {
        version: 1,
        id,
        createdAt,
        recipe: request.recipe,
        fingerprint: request.fingerprint,
        bundle: request.bundle ?? request.targets[0]?.bundle ?? "",
        targets: request.targets.map((t) => ({ path: t.path, beforeHash: t.content === null ? null : sha256Hex(t.content), ...(t.ref === undefined ? {} : { ref: t.ref }) })),
        allowedPaths: request.allowedPaths,
        evidenceIds: request.evidence.map((e) => e.id),
        ...(request.runId === undefined ? {} : { runId: request.runId }),
        status: "open"
      }
      fs.writeFileSync(path.join(temp, PACKET_MANIFEST), JSON.stringify(manifest, null, 2) + "\n", { mode: 0o600 })
      fs.writeFileSync(path.join(temp, PACKET_TASK), task, { mode: 0o600 })
      fs.mkdirSync(path.join(temp, PACKET_OUT), { mode: 0o700 })
      try {
        fs.renameSync(temp, dir)
      } catch (e) {
        fs.rmSync(temp, { recursive: true, force: true })
        // A concurrent writer of the same attempt got there first: theirs is the packet.
        if (!fs.existsSync(path.join(dir, PACKET_MANIFEST))) throw e
      }
      return { id, dir }
    },
    catch: ioFailure(id, "could not write the packet")
  })
}

const isManifest = (value: unknown): value is PacketManifest => {
  const m = value as Partial<PacketManifest> | null
  return m !== null && typeof m === "object" && m.version === 1 && typeof m.id === "string" && Array.isArray(m.allowedPaths) && Array.isArray(m.targets) && (m.status === "open" || m.status === "submitted")
}

const readManifestAt = (id: string, dir: string): Effect.Effect<PacketManifest, PacketError> =>
  Effect.try({
    try: () => fs.readFileSync(path.join(dir, PACKET_MANIFEST), "utf8"),
    catch: () => new PacketError({ id, reason: "does not exist", hint: "use the id akm printed when it wrote the packet (see `ls $AKM_DATA_DIR/packets`)" })
  }).pipe(
    Effect.flatMap((text) => Effect.try({ try: () => JSON.parse(text) as unknown, catch: () => undefined }).pipe(Effect.orElseSucceed(() => undefined))),
    Effect.filterOrFail(isManifest, () => new PacketError({ id, reason: `${PACKET_MANIFEST} is damaged`, hint: "run `akm improve` again to write a fresh packet" })),
    Effect.filterOrFail((m) => m.id === id, () => new PacketError({ id, reason: `${PACKET_MANIFEST} names another packet`, hint: "run `akm improve` again to write a fresh packet" }))
  )

/** The packet's manifest. */
export const readPacket = (id: string): Effect.Effect<PacketManifest, PacketError, WorkspaceConfig> =>
  Effect.flatMap(WorkspaceConfig, (workspace) => Effect.flatMap(packetDir(workspace.paths.packetsDir, id), (dir) => readManifestAt(id, dir)))

export interface PacketLimits {
  /** Per file and for all files together, bytes (default 4 MiB, as a model's answer). */
  readonly maxBytes?: number | undefined
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * The candidate files the agent wrote under out/. Refused as a whole (a
 * PacketError naming every offending path): a path the packet does not
 * allow, a symbolic link or other non-regular file, a file that is not
 * UTF-8 text, more than `maxBytes`, or an empty out/.
 */
export const packetCandidates = (id: string, limits: PacketLimits = {}): Effect.Effect<ReadonlyArray<CandidateFile>, PacketError, WorkspaceConfig> =>
  Effect.gen(function* () {
    const workspace = yield* WorkspaceConfig
    const dir = yield* packetDir(workspace.paths.packetsDir, id)
    const manifest = yield* readManifestAt(id, dir)
    const maxBytes = limits.maxBytes ?? GENERATOR_DEFAULTS.maxOutputBytes
    const allowed = manifest.allowedPaths.length === 0 ? () => false : picomatch([...manifest.allowedPaths], { dot: true })
    const isAllowed = (rel: string) => manifest.allowedPaths.includes(rel) || allowed(rel)
    return yield* Effect.try({
      try: () => {
        const outDir = path.join(dir, PACKET_OUT)
        const problems: Array<string> = []
        const files: Array<CandidateFile> = []
        let total = 0
        const walk = (abs: string, rel: string): void => {
          for (const entry of fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
            const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`
            const childAbs = path.join(abs, entry.name)
            const stat = fs.lstatSync(childAbs)
            if (stat.isSymbolicLink()) problems.push(`${childRel} is a symbolic link`)
            else if (stat.isDirectory()) walk(childAbs, childRel)
            else if (!stat.isFile()) problems.push(`${childRel} is not a regular file`)
            else if (!isAllowed(childRel)) problems.push(`${childRel} is not a path this packet may write (allowed: ${manifest.allowedPaths.join(", ")})`)
            else if (stat.size > maxBytes || total + stat.size > maxBytes) problems.push(`${childRel} takes the candidates over ${maxBytes} bytes`)
            else {
              total += stat.size
              try {
                files.push({ path: childRel, content: utf8.decode(fs.readFileSync(childAbs)) })
              } catch {
                problems.push(`${childRel} is not UTF-8 text`)
              }
            }
          }
        }
        if (!fs.existsSync(outDir)) throw new PacketError({ id, reason: `${PACKET_OUT}/ is missing`, hint: "run `akm improve` again to write a fresh packet" })
        walk(outDir, "")
        if (problems.length > 0) throw new PacketError({ id, reason: `out/ cannot be accepted: ${problems.join("; ")}`, hint: "fix or remove those files under out/, then submit again" })
        if (files.length === 0) throw new PacketError({ id, reason: "out/ holds no candidate file", hint: "write the changed files under out/ as TASK.md says, then submit again" })
        return files
      },
      catch: (e) => (e instanceof PacketError ? e : ioFailure(id, "could not read out/")(e))
    })
  })

/** Records that `akm proposal submit` turned the packet into `proposalId` (manifest rewritten atomically, 0600). */
export const markPacketSubmitted = (id: string, proposalId: string): Effect.Effect<PacketManifest, PacketError, WorkspaceConfig> =>
  Effect.gen(function* () {
    const workspace = yield* WorkspaceConfig
    const dir = yield* packetDir(workspace.paths.packetsDir, id)
    const manifest = yield* readManifestAt(id, dir)
    const next: PacketManifest = { ...manifest, status: "submitted", proposalId }
    yield* Effect.try({
      try: () => {
        const temp = path.join(dir, `.${PACKET_MANIFEST}.tmp`)
        fs.writeFileSync(temp, JSON.stringify(next, null, 2) + "\n", { mode: 0o600 })
        fs.renameSync(temp, path.join(dir, PACKET_MANIFEST))
      },
      catch: ioFailure(id, "could not update the packet")
    })
    return next
  })

/** The agent generator over a packets directory; TASK.md passes the redactor as a last guard (R-GEN-1). */
export const makeAgentGenerator = (packetsDir: string, redactor: Redactor["Type"]): Generator["Type"] => ({
  id: "agent",
  available: true,
  generate: (request) =>
    Effect.all([Clock.currentTimeMillis, redactor.redact(taskMarkdown(packetIdFor(request.fingerprint), request))]).pipe(
      Effect.flatMap(([now, task]) => writePacket(packetsDir, request, new Date(now).toISOString(), task)),
      Effect.map(({ id, dir }) => ({ _tag: "Packet" as const, id, dir })),
      Effect.mapError((e) => new GenerationFailed("refused", e.message))
    )
})

/** The agent generator over the workspace's packets directory. */
export const GeneratorAgent = Layer.effect(
  Generator,
  Effect.map(Effect.all([WorkspaceConfig, Redactor]), ([workspace, redactor]) => makeAgentGenerator(workspace.paths.packetsDir, redactor))
)
