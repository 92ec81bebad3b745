import { Effect } from "effect"
import { MaterializeFailed } from "../../services/Materializer.js"
import type { MaterializerContext, SourceMaterializer } from "./SourceMaterializer.js"

// Placeholder until the npm materializer lands.
export const makeNpmMaterializer = (_ctx: MaterializerContext): SourceMaterializer<"npm"> => ({
  kind: "npm",
  cached: true,
  materialize: (bundle) => Effect.fail(new MaterializeFailed({ bundle, source: "npm", reason: "not built yet", hint: "" }))
})
