import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { createItem } from "../programs/create.js"
import { directView } from "./directResult.js"
import { globalOptions } from "./options.js"
import { callerContext, runCommand } from "./run.js"

export const createCommand = Command.make(
  "create",
  {
    type: Args.text({ name: "type" }).pipe(Args.withDescription("the item type in the bundle's format: knowledge, skill, memory, lesson, agent, command, …")),
    bundle: Options.text("bundle").pipe(Options.withDescription("the bundle to write to (default: defaultBundle)"), Options.optional),
    title: Options.text("title").pipe(Options.withDescription("the item's title; its name is derived from it")),
    description: Options.text("description").pipe(Options.withDescription("a one-line description"), Options.optional),
    body: Options.text("body").pipe(Options.withDescription("the body text"), Options.optional),
    bodyFile: Options.text("body-file").pipe(Options.withDescription("a local file holding the body"), Options.optional),
    field: Options.text("field").pipe(Options.withPseudoName("key=value"), Options.withDescription("one of the adapter's fields (repeatable; a repeated key makes a list)"), Options.repeated),
    ...globalOptions
  },
  (o) =>
    runCommand(
      o,
      createItem({
        type: o.type,
        bundle: Option.getOrUndefined(o.bundle),
        title: o.title,
        description: Option.getOrUndefined(o.description),
        body: Option.getOrUndefined(o.body),
        bodyFile: Option.getOrUndefined(o.bodyFile),
        fields: o.field,
        ...callerContext()
      }),
      directView("created")
    )
).pipe(Command.withDescription("Create a native item with the bundle's adapter (as an accepted proposal). Example: akm create knowledge --bundle notes --title \"Release checklist\" --body-file ./draft.md --field tags=release --field tags=ops"))
