import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { remember } from "../programs/remember.js"
import { directView } from "./directResult.js"
import { globalOptions } from "./options.js"
import { runCommand } from "./run.js"

export const rememberCommand = Command.make(
  "remember",
  {
    text: Args.text({ name: "text" }).pipe(Args.withDescription("what to remember; its first sentence becomes the title")),
    bundle: Options.text("bundle").pipe(Options.withDescription("the bundle to write to (default: defaultBundle)"), Options.optional),
    title: Options.text("title").pipe(Options.withDescription("the memory's title (default: the first sentence)"), Options.optional),
    tag: Options.text("tag").pipe(Options.withAlias("tags"), Options.withDescription("a tag; repeat it or separate tags with commas"), Options.repeated),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      remember({ text: o.text, bundle: Option.getOrUndefined(o.bundle), title: Option.getOrUndefined(o.title), tags: o.tag.flatMap((t) => t.split(",")) }),
      directView("remembered")
    )
).pipe(Command.withDescription("Write a memory into a bundle (as an accepted proposal you can revert). Example: akm remember \"staging needs the VPN\" --tag staging"))
