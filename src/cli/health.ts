import * as Command from "@effect/cli/Command"
import { health, type HealthResult } from "../programs/health.js"
import { ExitCode } from "./exitCodes.js"
import { globalOptions } from "./options.js"
import { formatBytes, table, type View } from "./render.js"
import { runCommand } from "./run.js"

export const healthView: View<HealthResult> = {
  text: (r, s) =>
    [
      r.bundles.length === 0
        ? "no bundles yet — add one with: akm bundle add <folder>"
        : table([
          [s.dim("BUNDLE"), s.dim("ADAPTER"), s.dim("ITEMS"), s.dim("INDEXED"), s.dim("STATUS")],
          ...r.bundles.map((b) => [
            b.bundle,
            b.adapter ?? "-",
            String(b.items),
            b.indexedAt ?? "never",
            b.stale !== null ? s.yellow("stale") : b.refresh.overdue ? s.yellow("refresh overdue") : b.indexedAt === null ? s.yellow("not indexed") : s.green("ok")
          ])
        ]),
      "",
      table(r.databases.map((d) => [s.dim(d.name), d.bytes === null ? "missing" : formatBytes(d.bytes), s.dim(d.path)])),
      `${s.dim("pending proposals:")} ${r.proposals.pending}`,
      "",
      r.ok
        ? `${s.green("✓")} nothing needs attention`
        : [`${s.yellow("!")} ${r.attention.length} thing${r.attention.length === 1 ? " needs" : "s need"} attention:`, ...r.attention.map((a) => `  - ${a.message} ${s.dim(`(${a.hint})`)}`)].join("\n")
    ].join("\n"),
  rows: (r) => r.bundles
}

export const healthCommand = Command.make("health", { ...globalOptions }, (o) =>
  runCommand(o, health(), healthView, (result) => (result.ok ? ExitCode.ok : ExitCode.attention))
).pipe(Command.withDescription("Check the workspace: bundles, index freshness, database sizes, pending proposals; exits 4 when something needs attention. Example: akm health --format json"))
