import { Effect } from "effect"
import { AuthoringRefused } from "../../../domain/Adapter.js"
import type { AuthoringParts } from "../core/RuleBook.js"

const PREAMBLE = `A dotenv bundle holds only \`env/\` (dotenv files: \`KEY=value\` lines) and \`secrets/\` (one secret per file).
akm indexes key names and descriptions marked \`# akm:public\`, never values or other comments; a \`<name>.sensitive\` file hides an item.
Values are written only by \`akm env set\` and \`akm secret set\` (from stdin, never argv), never through create or a proposal.`

export const DOTENV_AUTHORING: AuthoringParts = {
  preamble: PREAMBLE,
  examples: ["# akm:public Connection settings for the billing API\n\n# akm:public Base URL of the billing API\nBILLING_URL=\nBILLING_TOKEN=\n"],
  allowedPaths: [],
  constraints: ["never write values into a proposal", "writes go through `akm env` and `akm secret`"]
}

export const refuseDotenvCreate = (): Effect.Effect<never, AuthoringRefused> =>
  Effect.fail(new AuthoringRefused(
    "dotenv bundles are written only through `akm env` and `akm secret`",
    "set a value with `akm env set <ref> KEY` or `akm secret set <ref>` (values come from stdin)"
  ))
