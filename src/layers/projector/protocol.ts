import type { BundleInfo, FileMeta, ItemPlan } from "../../domain/Adapter.js"
import type { ProjectedItem } from "../../domain/ItemProjection.js"

/** Messages between the projector pool and its worker threads (structured clones). */

/** Starts a job: the bundle, its adapter (built-in, by id) and the walk every context of the job reads from. */
export interface JobMessage {
  readonly type: "job"
  readonly job: number
  readonly info: BundleInfo
  readonly adapter: string
  readonly files: ReadonlyArray<FileMeta>
}

/** A run of plans to project, in order; `indexes` are their positions in the scan's plans. */
export interface ChunkMessage {
  readonly type: "chunk"
  readonly job: number
  readonly seq: number
  readonly indexes: ReadonlyArray<number>
  readonly plans: ReadonlyArray<ItemPlan>
}

export type ToWorker = JobMessage | ChunkMessage

export type FromWorker =
  | { readonly type: "ready" }
  | { readonly type: "done"; readonly job: number; readonly seq: number; readonly items: ReadonlyArray<ProjectedItem> }
  | { readonly type: "failed"; readonly job: number; readonly seq: number; readonly message: string }
