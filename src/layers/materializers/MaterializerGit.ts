import { Effect } from "effect"
import { MaterializeFailed } from "../../services/Materializer.js"
import type { MaterializerContext, SourceMaterializer } from "./SourceMaterializer.js"

// Placeholder until the git materializer lands.
export const makeGitMaterializer = (_ctx: MaterializerContext): SourceMaterializer<"git"> => ({
  kind: "git",
  cached: true,
  materialize: (bundle) => Effect.fail(new MaterializeFailed({ bundle, source: "git", reason: "not built yet", hint: "" }))
})
