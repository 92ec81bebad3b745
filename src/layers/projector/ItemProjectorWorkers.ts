import { Effect, Layer, Queue } from "effect"
import { existsSync } from "node:fs"
import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import { projectSequentially, type ProjectedItem } from "../../domain/ItemProjection.js"
import { BundleFiles } from "../../services/BundleFiles.js"
import { ItemProjector, type ProjectionJob } from "../../services/ItemProjector.js"
import { builtInRegistry, registryAdapters } from "../adapters/registry.js"
import type { FromWorker, ToWorker } from "./protocol.js"
import { nextTurn } from "../../domain/NextTurn.js"
import { BOUND_HEAP_PLANS, boundHeapGrowth } from "./heapGrowth.js"

export interface ProjectorWorkerOptions {
  /** The worker script (dist/cli/projector-worker.cjs). Undefined or missing: every job runs in-process. */
  readonly script: string | undefined
  /** Worker threads; default see defaultWorkers; 0 runs every job in-process. */
  readonly workers?: number | undefined
  /** Jobs with fewer plans run in-process: starting threads and loading adapters costs more than they save. */
  readonly minPlans?: number | undefined
}

/** More threads than this only add memory: the main thread's SQLite writes are the limit by then. */
const MAX_WORKERS = 4

/**
 * Below this many plans a job runs in-process: a worker takes ~0.1 s to start
 * and load the adapters, about what 150–200 items cost to project in-process.
 */
export const MIN_PARALLEL_PLANS = 400

/**
 * A worker's heap: a small young generation (what it allocates is garbage
 * within a chunk) keeps its resident memory down (20,000 items: 370 MB for
 * the process with V8's default, 332 MB with 8 MB, at 5 % more time). A
 * worker past the old-generation cap dies, and the pool projects in-process.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 256 }

/** Plans per chunk: small enough that the reorder buffer stays small, large enough that messages are few. */
const CHUNK_PLANS = 16

/** Chunks a worker holds at once: one being projected, one waiting, so it never idles while the main thread writes. */
const IN_FLIGHT = 2

type Reply = { readonly worker: number; readonly message: FromWorker | { readonly type: "crashed"; readonly reason: string } }

/** Below this many cores the scan stays in-process unless asked (AKM_INDEX_WORKERS): see defaultWorkers. */
const PARALLEL_MIN_CORES = 4

/**
 * One fewer than the machine's cores (the main thread writes, and projects
 * too whenever it has nothing to write), from PARALLEL_MIN_CORES up. On two
 * cores a worker saved 10 % at 5,000 items and 22 % at 20,000 but added
 * ~65 MB of resident memory (a second heap), past spec 10's 300 MB at 20,000
 * items: there the default is in-process (docs/decisions/0006-parallel-scan.md).
 */
const defaultWorkers = (cores: number): number => (cores < PARALLEL_MIN_CORES ? 0 : Math.min(MAX_WORKERS, cores - 1))

/** The worker count from options, else AKM_INDEX_WORKERS (a whole number; 0 = in-process), else the machine's default. */
const workerCount = (options: ProjectorWorkerOptions): number => {
  const fromEnv = process.env.AKM_INDEX_WORKERS
  const requested = options.workers ?? (fromEnv !== undefined && /^\d+$/.test(fromEnv) ? Number(fromEnv) : undefined)
  return requested === undefined ? defaultWorkers(availableParallelism()) : Math.min(MAX_WORKERS, requested)
}

/**
 * ItemProjector over worker threads (docs/decisions/0006-parallel-scan.md):
 * a large job's plans go out in chunks to a pool of workers, each projecting
 * with its own read-only BundleFiles and the built-in adapters, while the
 * main thread writes what came back; results are handed on in the job's
 * order, so the index is the same as in-process (R-IDX-4). Small jobs,
 * adapters that are not built in, a missing worker script or a worker that
 * dies all fall back to projecting in-process; nothing is lost either way.
 */
export const ItemProjectorWorkers = (options: ProjectorWorkerOptions) =>
  Layer.scoped(
    ItemProjector,
    Effect.gen(function* () {
      const files = yield* BundleFiles
      const builtIn = new Set(registryAdapters(builtInRegistry))
      const size = workerCount(options)
      const minPlans = options.minPlans ?? MIN_PARALLEL_PLANS
      const script = options.script !== undefined && existsSync(options.script) ? options.script : undefined
      let pool: Array<Worker> | undefined
      // A worker that died once is not retried in this process: the in-process path is always there.
      let broken = false
      let jobs = 0
      const lock = yield* Effect.makeSemaphore(1)
      yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all((pool ?? []).map((worker) => worker.terminate()))))

      const hashFor = (job: ProjectionJob) => (paths: ReadonlyArray<string>) => files.hash(job.info.root, paths, job.ctx)
      const inProcess = <E, R>(job: ProjectionJob, order: ReadonlyArray<number>, emit: (items: ReadonlyArray<ProjectedItem>) => Effect.Effect<void, E, R>) =>
        projectSequentially(job.info, job.adapter, job.ctx, hashFor(job), job.plans, order, job.batchSize, emit)

      const collect = (job: ProjectionJob, order: ReadonlyArray<number>) =>
        Effect.suspend(() => {
          const items: Array<ProjectedItem> = []
          return Effect.as(inProcess(job, order, (batch) => Effect.sync(() => void items.push(...batch))), items as ReadonlyArray<ProjectedItem>)
        })

      const start = (file: string): Array<Worker> =>
        Array.from({ length: size }, () => {
          const worker = new Worker(file, { resourceLimits: WORKER_LIMITS })
          // Idle workers never keep the process alive; the layer's scope terminates them.
          worker.unref()
          // A worker that fails between jobs must not throw in the main thread; the next job sees it gone.
          worker.on("error", () => void (broken = true))
          return worker
        })

      const stop = () => {
        const workers = pool ?? []
        pool = undefined
        broken = true
        return Effect.promise(() => Promise.all(workers.map((worker) => worker.terminate())))
      }

      const parallel = <E, R>(job: ProjectionJob, file: string, emit: (items: ReadonlyArray<ProjectedItem>) => Effect.Effect<void, E, R>) =>
        Effect.gen(function* () {
          const workers = (pool ??= start(file))
          const id = ++jobs
          const chunks: Array<ReadonlyArray<number>> = []
          for (let at = 0; at < job.order.length; at += CHUNK_PLANS) chunks.push(job.order.slice(at, at + CHUNK_PLANS))
          const replies = yield* Queue.unbounded<Reply>()
          // Referenced while a job runs: a fiber waiting on a reply holds no handle of its own, and node would exit.
          const detach = workers.map((worker, index) => {
            worker.ref()
            const onMessage = (message: FromWorker) => void Queue.unsafeOffer(replies, { worker: index, message })
            const onError = (error: unknown) => void Queue.unsafeOffer(replies, { worker: index, message: { type: "crashed", reason: String(error) } })
            const onExit = (code: number) => void Queue.unsafeOffer(replies, { worker: index, message: { type: "crashed", reason: `exited with ${code}` } })
            worker.on("message", onMessage)
            worker.on("error", onError)
            worker.on("exit", onExit)
            return () => {
              worker.unref()
              worker.off("message", onMessage)
              worker.off("error", onError)
              worker.off("exit", onExit)
            }
          })
          const body = Effect.gen(function* () {
            const results = new Map<number, ReadonlyArray<ProjectedItem>>()
            const inFlight = workers.map(() => 0)
            let sent = 0
            let emitted = 0
            let fallback = false
            const send = (index: number) => {
              while (!fallback && inFlight[index]! < IN_FLIGHT && sent < chunks.length) {
                const indexes = chunks[sent]!
                const message: ToWorker = { type: "chunk", job: id, seq: sent, indexes, plans: indexes.map((i) => job.plans[i]!) }
                workers[index]!.postMessage(message)
                inFlight[index]!++
                sent++
              }
            }
            const header: ToWorker = { type: "job", job: id, info: job.info, adapter: job.adapter.id, files: job.walked.files }
            for (const worker of workers) worker.postMessage(header)
            workers.forEach((_, index) => send(index))
            const handle = (reply: Reply) =>
              Effect.gen(function* () {
                const message = reply.message
                if (message.type === "ready") return
                if (message.type === "crashed") {
                  fallback = true
                  yield* stop()
                  return
                }
                if (message.job !== id) return
                inFlight[reply.worker]!--
                if (message.type === "done") results.set(message.seq, message.items)
                else {
                  // A chunk a worker could not hand back (e.g. a value that does not clone): project it here.
                  results.set(message.seq, yield* collect(job, chunks[message.seq]!))
                }
                send(reply.worker)
              })
            while (emitted < chunks.length) {
              // Hand on everything that is next in order; after a crash, project what is missing here.
              const ready = results.get(emitted)
              if (ready !== undefined) {
                results.delete(emitted)
                yield* emit(ready)
                emitted++
                continue
              }
              if (fallback) {
                yield* inProcess(job, chunks[emitted]!, emit)
                emitted++
                continue
              }
              // Replies arrive as event-loop tasks: let them in before deciding there is none.
              yield* nextTurn
              const waiting = yield* Queue.poll(replies)
              if (waiting._tag === "Some") {
                yield* handle(waiting.value)
                continue
              }
              // Nothing to write and no reply yet: the main thread projects the next chunk itself rather than idle.
              if (sent < chunks.length) {
                const seq = sent++
                results.set(seq, yield* collect(job, chunks[seq]!))
                continue
              }
              yield* handle(yield* Queue.take(replies))
            }
          })
          return yield* body.pipe(Effect.ensuring(Effect.sync(() => detach.forEach((off) => off()))))
        })

      return ItemProjector.of({
        run: (job, emit) =>
          Effect.suspend(() => {
            if (job.order.length >= BOUND_HEAP_PLANS) boundHeapGrowth()
            const eligible = script !== undefined && !broken && size > 0 && job.order.length >= minPlans && builtIn.has(job.adapter)
            return eligible ? lock.withPermits(1)(parallel(job, script, emit)) : inProcess(job, job.order, emit)
          })
      })
    })
  )

/** The in-process ItemProjector: what every layer falls back to, as a layer of its own for tests and embedders. */
export const ItemProjectorInProcess = ItemProjectorWorkers({ script: undefined })
