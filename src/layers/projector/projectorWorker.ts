// A projector worker thread (dist/cli/projector-worker.cjs): projects chunks of
// a scan's plans with the built-in adapters and its own read-only BundleFiles,
// and posts the results back. It never writes (R-AD-7, R-IDX-1).
import { Effect } from "effect"
import { parentPort } from "node:worker_threads"
import type { BundleAdapter, BundleInfo, ValidateContext } from "../../domain/Adapter.js"
import { projectItem } from "../../domain/ItemProjection.js"
import { builtInRegistry, registryAdapters } from "../adapters/registry.js"
import { makeBundleFiles } from "../fs/BundleFilesNode.js"
import type { FromWorker, ToWorker } from "./protocol.js"

const port = parentPort
if (port === null) throw new Error("projector-worker runs as a worker thread")

const files = makeBundleFiles()
const adapters = registryAdapters(builtInRegistry)
// The job this worker thread runs now: one at a time, replaced by the next (bound: one job).
let current: { readonly job: number; readonly info: BundleInfo; readonly adapter: BundleAdapter; readonly ctx: ValidateContext } | undefined

const post = (message: FromWorker) => port.postMessage(message)

port.on("message", (message: ToWorker) => {
  if (message.type === "job") {
    const adapter = adapters.find((a) => a.id === message.adapter)
    if (adapter === undefined) throw new Error(`unknown adapter ${message.adapter}`)
    current = { job: message.job, info: message.info, adapter, ctx: files.context(message.info, message.files) }
    return
  }
  const job = current
  if (job === undefined || job.job !== message.job) {
    post({ type: "failed", job: message.job, seq: message.seq, message: "chunk for a job this worker was not given" })
    return
  }
  const hash = (paths: ReadonlyArray<string>) => files.hash(job.info.root, paths, job.ctx)
  Effect.runPromise(Effect.forEach(message.plans, (plan, k) => projectItem(job.info, job.adapter, job.ctx, hash, plan, message.indexes[k]!))).then(
    (items) => {
      try {
        post({ type: "done", job: message.job, seq: message.seq, items })
      } catch (error) {
        // Something in a projection that cannot be cloned: the pool projects this chunk itself.
        post({ type: "failed", job: message.job, seq: message.seq, message: String(error) })
      }
    },
    (error: unknown) => post({ type: "failed", job: message.job, seq: message.seq, message: String(error) })
  )
})

post({ type: "ready" })
