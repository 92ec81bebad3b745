import { Context, type Effect } from "effect"
import type { BundleAdapter, BundleInfo, ItemPlan, ValidateContext } from "../domain/Adapter.js"
import type { ProjectedItem } from "../domain/ItemProjection.js"
import type { WalkResult } from "./BundleFiles.js"

/** One scan's projection work: every kept plan of a bundle, and the order to hand results on in. */
export interface ProjectionJob {
  readonly info: BundleInfo
  readonly adapter: BundleAdapter
  readonly walked: WalkResult
  /** The scan's own context over `walked` (a projector that runs in-process reads through it). */
  readonly ctx: ValidateContext
  readonly plans: ReadonlyArray<ItemPlan>
  /** Indexes into `plans`, in the order results must arrive (ref order). */
  readonly order: ReadonlyArray<number>
  /** Results per `emit` call, at most. */
  readonly batchSize: number
}

/**
 * Projects a scan's planned items (adapter `project`, content hash, document
 * shape check; R-AD-8). Results reach `emit` in the job's order whatever runs
 * them, so an index built through any layer is the same (R-IDX-4). The
 * in-process layer projects one item after another; the worker layer spreads
 * large jobs over worker threads (docs/decisions/0006-parallel-scan.md).
 */
export class ItemProjector extends Context.Tag("akm/ItemProjector")<ItemProjector, {
  readonly run: <E, R>(job: ProjectionJob, emit: (items: ReadonlyArray<ProjectedItem>) => Effect.Effect<void, E, R>) => Effect.Effect<void, E, R>
}>() {}
