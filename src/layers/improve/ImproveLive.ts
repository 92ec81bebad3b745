import { Context, Effect, Layer } from "effect"
import { improveRun } from "../../programs/improve/run.js"
import { improveSubmit } from "../../programs/improve/submit.js"
import { Generator } from "../../services/Generator.js"
import { Improve, type ImproveInput } from "../../services/Improve.js"
import { ImproveStore } from "../../services/ImproveStore.js"
import { SandboxIndexMiniSearch } from "../memory/SandboxIndexMiniSearch.js"
import { ImproveStoreSqlite } from "../sqlite/ImproveStoreSqlite.js"

type Needs =
  | Effect.Effect.Context<ReturnType<typeof improveRun>>
  | Effect.Effect.Context<ReturnType<typeof improveSubmit>>
  | ImproveStore

/**
 * Improve composed from the services it needs (spec 00 §3.2): EvidenceStore,
 * Generator, a sandbox IndexStore, Transaction and ProposalStore, captured
 * once when the layer is built. Swap the Generator (or EvidenceStore) layer
 * underneath to change where candidates come from.
 */
export const ImproveComposed = Layer.effect(
  Improve,
  Effect.map(Effect.context<Needs>(), (context) =>
    Improve.of({
      run: (input: ImproveInput) => Effect.provide(improveRun(input), context),
      runs: (last) => Effect.provide(Effect.flatMap(ImproveStore, (store) => store.runs(last)), context),
      submit: (packetId, dir) => Effect.provide(improveSubmit(packetId, dir), context),
      generator: { id: Context.get(context, Generator).id, available: Context.get(context, Generator).available }
    }))
)

/** ImproveComposed with its own records in state.db and MiniSearch sandboxes. */
export const ImproveLive = ImproveComposed.pipe(Layer.provide(Layer.mergeAll(ImproveStoreSqlite, SandboxIndexMiniSearch)))
