import { Effect } from "effect"
import { MaterializeFailed } from "../../services/Materializer.js"
import type { MaterializerContext, SourceMaterializer } from "./SourceMaterializer.js"

// Placeholder until the website materializer lands.
export const makeWebsiteMaterializer = (_ctx: MaterializerContext): SourceMaterializer<"website"> => ({
  kind: "website",
  cached: true,
  materialize: (bundle) => Effect.fail(new MaterializeFailed({ bundle, source: "website", reason: "not built yet", hint: "" }))
})
