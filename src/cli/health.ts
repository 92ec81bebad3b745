import * as Command from "@effect/cli/Command"
import { health } from "../programs/health.js"
import { ExitCode } from "./exitCodes.js"
import { healthView } from "./healthView.js"
import { globalOptions } from "./options.js"
import { runCommand } from "./run.js"

export const healthCommand = Command.make("health", { ...globalOptions }, (o) =>
  runCommand(o, health(), healthView, (result) => (result.ok ? ExitCode.ok : ExitCode.attention))
).pipe(Command.withDescription("Check the workspace: bundles, index freshness, memory against its water marks, database sizes, pending proposals; exits 4 when something needs attention. Example: akm health --format html > health.html"))
