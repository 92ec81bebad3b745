import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { shortId } from "../domain/Proposal.js"
import { okfIndex, okfIndexWriteCommand, type OkfIndexResult } from "../programs/okf/index.js"
import { globalOptions } from "./options.js"
import type { View } from "./render.js"
import { runCommand } from "./run.js"

const indexView = (bundle: string | undefined, write: boolean): View<OkfIndexResult> => ({
  text: (r, s) => {
    if (r.bundles.length === 0) return "no writable okf bundles (name one with --bundle)"
    const changed = r.files.filter((f) => f.action !== "unchanged")
    if (changed.length === 0) return `${s.green("✓")} every index.md is up to date (${r.files.length} in ${r.bundles.join(", ")})`
    if (!write) return [r.diff.replace(/\n$/, ""), `${s.red("✗")} ${changed.length} index.md file${changed.length === 1 ? " is" : "s are"} out of date: run ${okfIndexWriteCommand(bundle)}`].join("\n")
    const p = r.proposal
    return [
      ...changed.map((f) => `${f.action}  ${f.bundle}//${f.path}`),
      ...(p === undefined ? [] : [p.hint === undefined ? s.dim(`  proposal ${shortId(p.id)} (undo: akm proposal revert ${shortId(p.id)})`) : s.yellow(`  ${p.hint}`)])
    ].join("\n")
  },
  rows: (r) => r.files
})

const indexCommand = Command.make(
  "index",
  {
    write: Options.boolean("write").pipe(Options.withDescription("write the regenerated index.md files through one proposal")),
    bundle: Options.text("bundle").pipe(Options.withDescription("only this okf bundle (default: every writable okf bundle)"), Options.optional),
    ...globalOptions
  },
  (o) => {
    const bundle = Option.getOrUndefined(o.bundle)
    return runCommand(o, okfIndex({ bundle, write: o.write }), indexView(bundle, o.write), (r) => (r.current || o.write ? 0 : 1))
  }
).pipe(Command.withDescription("Regenerate each OKF folder's index.md from its concepts; without --write print the diff and exit 1 when one is out of date. Example: akm okf index --write"))

export const okfCommand = Command.make("okf").pipe(
  Command.withDescription("Open Knowledge Format helpers: generate index.md listings. Example: akm okf index"),
  Command.withSubcommands([indexCommand])
)
