import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { importFile } from "../programs/import.js"
import { directView } from "./directResult.js"
import { globalOptions } from "./options.js"
import { callerContext, runCommand } from "./run.js"

export const importCommand = Command.make(
  "import",
  {
    source: Args.text({ name: "file" }).pipe(Args.withDescription("a local text file: a path or a file:// URL")),
    bundle: Options.text("bundle").pipe(Options.withDescription("the bundle to write to (default: defaultBundle)"), Options.optional),
    type: Options.text("type").pipe(Options.withDescription("the item type (default: the file's frontmatter type, else knowledge)"), Options.optional),
    ...globalOptions
  },
  (o) =>
    runCommand(o, importFile({ source: o.source, bundle: Option.getOrUndefined(o.bundle), type: Option.getOrUndefined(o.type), ...callerContext() }), directView("imported"))
).pipe(Command.withDescription("Copy a local file into a bundle as a native item (as an accepted proposal). Example: akm import ./notes/http-caching.md --bundle notes"))
