/**
 * An agent work packet (spec 06 §5, generator `agent`): no model runs inside
 * akm; the packet holds the task and the calling agent writes the candidates.
 *
 *   $AKM_DATA_DIR/packets/<id>/packet.json   this manifest (0600)
 *   $AKM_DATA_DIR/packets/<id>/TASK.md       authoring context, evidence, targets, what to write
 *   $AKM_DATA_DIR/packets/<id>/out/<path>    candidate files, `path` relative to the target bundle root
 *
 * `akm proposal submit <id>` reads out/, then validates and evaluates the
 * candidates exactly as for a model's (Level 1 and 2), and creates the proposal.
 */
export interface PacketManifest {
  readonly version: 1
  readonly id: string
  readonly createdAt: string
  readonly recipe: "revise" | "learn" | "consolidate"
  readonly fingerprint: string
  readonly bundle: string
  /** The targets' paths with their before-hashes as the run's snapshot held them (null = to create). */
  readonly targets: ReadonlyArray<{ readonly path: string; readonly beforeHash: string | null; readonly ref?: string | undefined }>
  readonly allowedPaths: ReadonlyArray<string>
  readonly evidenceIds: ReadonlyArray<string>
  /** The improve run that wrote it. */
  readonly runId?: string | undefined
  /** "open" until submitted. */
  readonly status: "open" | "submitted"
  readonly proposalId?: string | undefined
}

export const PACKET_MANIFEST = "packet.json"
export const PACKET_TASK = "TASK.md"
export const PACKET_OUT = "out"
