import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { sync, type SyncedBundle, type SyncResult } from "../programs/sync.js"
import { globalOptions } from "./options.js"
import type { Style, View } from "./render.js"
import { runCommand } from "./run.js"

const short = (sha: string | undefined) => (sha === undefined ? "?" : sha.slice(0, 12))
const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`
const commits = (n: number) => `${n} commit${n === 1 ? "" : "s"}`

/** One bundle: what sync did (or would do), then the commits, paths and hints behind it. */
const bundleText = (b: SyncedBundle, dryRun: boolean, s: Style): ReadonlyArray<string> => {
  const would = (done: string, planned: string) => (dryRun ? planned : done)
  const upstream = b.upstream ?? "its remote"
  const head = `${s.bold(b.bundle)}  `
  const lines: Array<string> = []
  switch (b.action) {
    case "up-to-date":
      lines.push(`${head}${s.green("✓")} up to date with ${upstream} (${short(b.to)})`)
      break
    case "none":
      lines.push(`${head}${s.green("✓")} nothing new on ${upstream}`)
      break
    case "fast-forward":
      lines.push(`${head}${would("fast-forwarded", "would fast-forward")} ${short(b.from)} → ${short(b.to)}: ${commits(b.incoming)} from ${upstream}, ${files(b.changed.length)}`)
      break
    case "replay":
      lines.push(`${head}${would("took", "would take")} ${commits(b.incoming)} from ${upstream} and ${would("replayed", "replay")} ${commits(b.commits.length)} of akm's on top (${files(b.changed.length)})`)
      break
    case "push":
      lines.push(`${head}${b.pushed === undefined ? "would push" : "pushed"} ${commits(b.commits.length)} of akm's to ${upstream}${b.pushed === undefined ? "" : ` (${short(b.pushed)})`}`)
      break
    case "refused":
      lines.push(`${head}${s.red("✗")} refused: ${b.reason ?? ""}`)
      break
  }
  for (const c of b.commits) lines.push(`  ${short(c.sha)} ${c.subject}${c.replayedAs === undefined ? "" : s.dim(` → ${short(c.replayedAs)}`)}`)
  if (b.action !== "refused" && b.changed.length > 0 && b.changed.length <= 20) for (const p of b.changed) lines.push(`  ${s.dim(p)}`)
  for (const d of b.details ?? []) lines.push(`  ${d}`)
  if (b.pushed !== undefined && b.action !== "push") lines.push(`  pushed ${short(b.pushed)} to ${upstream}`)
  for (const w of b.warnings) lines.push(`  ${s.yellow("!")} ${w}`)
  if (b.hint !== undefined) lines.push(`  ${s.dim(`hint: ${b.hint}`)}`)
  return lines
}

export const syncView: View<SyncResult> = {
  text: (r, s) =>
    r.bundles.length === 0
      ? "no writable bundle is a git checkout — clone the shared repository and add it with: akm bundle add <folder>"
      : [...(r.dryRun ? [s.dim("dry run: nothing was written")] : []), ...r.bundles.flatMap((b) => bundleText(b, r.dryRun, s))].join("\n"),
  rows: (r) => r.bundles
}

export const syncCommand = Command.make(
  "sync",
  {
    bundles: Args.text({ name: "bundle" }).pipe(Args.withDescription("the writable git bundles to sync (default: every writable bundle that is a git checkout)"), Args.repeated),
    push: Options.boolean("push").pipe(Options.withDescription("push akm's own commits to the upstream branch (token: AKM_GIT_TOKEN or the bundle's git.token)")),
    dryRun: Options.boolean("dry-run").pipe(Options.withDescription("fetch and say what would happen; write nothing to the checkout")),
    allowInsecure: Options.boolean("allow-insecure").pipe(Options.withDescription("allow a remote over plain http:// (the address policy still applies)")),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      sync({ bundles: o.bundles, push: o.push, dryRun: o.dryRun, allowInsecure: o.allowInsecure }),
      syncView,
      (result) => (result.ok ? 0 : 1)
    )
).pipe(Command.withDescription("Share writable git bundles: fetch the upstream branch over https, fast-forward a clean checkout, replay akm's own commits, and with --push push them; never merges or rebases. Example: akm sync notes --push"))
