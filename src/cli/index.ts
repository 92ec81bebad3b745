import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { indexBundles } from "../programs/indexBundles.js"
import { indexView } from "./indexView.js"
import { globalOptions } from "./options.js"
import { runCommand } from "./run.js"

export const indexCommand = Command.make(
  "index",
  {
    bundle: Options.text("bundle").pipe(Options.withDescription("index only this bundle (default: every configured bundle)"), Options.optional),
    full: Options.boolean("full").pipe(Options.withDescription("rescan every file, ignoring what the last run recorded")),
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("report what would be added, updated and removed; write nothing")),
    prune: Options.boolean("prune").pipe(
      Options.withDescription("team mode (storage.kind postgres): also remove from the shared index the bundles this server does not configure")
    ),
    ...globalOptions
  },
  (o) => runCommand(o, indexBundles({ bundle: Option.getOrUndefined(o.bundle), full: o.full, dryRun: o.dryRun, prune: o.prune }), indexView)
).pipe(
  Command.withDescription(
    "Bring the local index up to date with your bundles. Unchanged bundles are only stat'ed; bundles never change. Example: akm index --bundle notes --dry-run"
  )
)
