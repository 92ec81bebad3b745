import { Effect, Layer } from "effect"
import type { BundleAdapter } from "../../src/domain/Adapter.js"
import { Adapters } from "../../src/services/Adapters.js"

/** The Adapters service over the one below it, with each adapter a scan asks for passed through `change` first. */
export const overrideAdapters = (change: (adapter: BundleAdapter) => BundleAdapter) =>
  Layer.effect(
    Adapters,
    Effect.map(Adapters, (real) =>
      Adapters.of({
        ...real,
        adapter: (id) => {
          const adapter = real.adapter(id)
          return adapter === undefined ? undefined : change(adapter)
        }
      }))
  )
