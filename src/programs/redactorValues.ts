import { Effect } from "effect"
import * as path from "node:path"
import { envValues, secretValues } from "../domain/Redaction.js"
import { BundleFiles } from "../services/BundleFiles.js"
import { IndexStore } from "../services/IndexStore.js"
import { Redactor } from "../services/Redactor.js"
import { WorkspaceConfig } from "../services/WorkspaceConfig.js"
import { resolveBundle } from "./scan.js"

/** Env and secret items of one bundle, at most this many (a dotenv bundle holds a handful). */
const MAX_ITEMS = 10_000

const ROOT_ENV_FILE = /^\.env(?:\.[^/]*)?$/

/**
 * The secret values of one bundle, read at index time so the redactor never
 * reads a bundle file later (spec 08 §2.1): the root `.env*` files of a
 * filesystem bundle and the files of its env and secret items. Values stay in
 * memory here; only their digests are stored. Unreadable files are skipped.
 */
const bundleValues = (name: string) =>
  Effect.gen(function* () {
    const files = yield* BundleFiles
    const store = yield* IndexStore
    const config = yield* (yield* WorkspaceConfig).read
    const { info } = yield* resolveBundle(name)
    const values: Array<string> = []
    if (config.bundles[name]?.source.kind === "filesystem") {
      const probe = files.probeContext(info.root)
      for (const entry of probe.entries.filter((e) => ROOT_ENV_FILE.test(e))) {
        const text = yield* probe.readText(entry)
        if (text !== undefined) values.push(...envValues(text))
      }
    }
    const { items } = yield* store.browse({ bundle: name, prefix: "", filters: { bundles: [name], types: ["env", "secret"], belief: "all", includeProposed: true }, limit: MAX_ITEMS })
    for (const item of items) {
      const relative = path.isAbsolute(item.path) ? path.relative(info.root, item.path).split(path.sep).join("/") : item.path
      const text = yield* Effect.option(files.readText(info.root, relative))
      if (text._tag === "Some") values.push(...(item.type === "secret" ? secretValues(text.value) : envValues(text.value)))
    }
    return values
  })

/**
 * After an index run: replaces the stored digests of each indexed bundle and
 * forgets those of bundles no longer configured. A bundle that cannot be
 * resolved keeps its digests (its files may come back).
 */
export const collectSecretValues = Effect.fn("redactor.collect")(function* (names: ReadonlyArray<string>, configured: ReadonlyArray<string>) {
  const redactor = yield* Redactor
  for (const name of names) {
    const values = yield* Effect.either(bundleValues(name))
    if (values._tag === "Right") yield* redactor.storeValues(name, values.right)
  }
  yield* redactor.retainSources(configured)
})
