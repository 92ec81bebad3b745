import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option } from "effect"
import { captureMemory, remember, type CaptureResult } from "../programs/remember.js"
import type { DirectResult } from "../programs/proposals/direct.js"
import { directView } from "./directResult.js"
import type { View } from "./render.js"
import { globalOptions } from "./options.js"
import { runCommand } from "./run.js"

const written = directView("remembered")

/** The write (or the queued intake), then the tier's warning when it is over high water. */
const rememberView: View<CaptureResult> = {
  text: (r, s) =>
    "queued" in r
      ? `${s.yellow("…")} queued: ${r.warning}`
      : [written.text(r as DirectResult, s), ...(r.warning === undefined ? [] : [s.yellow(`  warning: ${r.warning}`)])].join("\n")
}

export const rememberCommand = Command.make(
  "remember",
  {
    text: Args.text({ name: "text" }).pipe(Args.withDescription("what to remember; its first sentence becomes the title")),
    bundle: Options.text("bundle").pipe(Options.withDescription("the bundle to write to (default: defaultBundle)"), Options.optional),
    title: Options.text("title").pipe(Options.withDescription("the memory's title (default: the first sentence)"), Options.optional),
    tag: Options.text("tag").pipe(Options.withAlias("tags"), Options.withDescription("a tag; repeat it or separate tags with commas"), Options.repeated),
    expires: Options.text("expires").pipe(Options.withDescription("when it stops being true: a duration (30d, 12h, 2w) or an ISO date"), Options.optional),
    supersedes: Options.text("supersedes").pipe(Options.withDescription("the ref of a memory this one replaces; repeatable"), Options.repeated),
    background: Options.boolean("background").pipe(Options.withDescription("automatic capture: queue instead of writing while the memory tier is blocked")),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      (o.background ? captureMemory : (input: Parameters<typeof remember>[0]) => Effect.map(remember(input), (r): CaptureResult => r))({
        text: o.text,
        bundle: Option.getOrUndefined(o.bundle),
        title: Option.getOrUndefined(o.title),
        tags: o.tag.flatMap((t) => t.split(",")),
        expires: Option.getOrUndefined(o.expires),
        supersedes: o.supersedes
      }),
      rememberView
    )
).pipe(Command.withDescription("Write a memory into a bundle (as an accepted proposal you can revert). Example: akm remember \"staging needs the VPN\" --tag staging"))
