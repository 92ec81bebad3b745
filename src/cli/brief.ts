import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Option } from "effect"
import { shortId } from "../domain/Proposal.js"
import { briefCheck, briefExplain, briefWrite, type BriefCheck, type BriefExplain, type BriefWrite } from "../programs/brief/brief.js"
import { globalOptions } from "./options.js"
import { table, type View } from "./render.js"
import { callerContext, runCommand } from "./run.js"

const bundle = Options.text("bundle").pipe(Options.withDescription("the project bundle (default: the one around the current folder, else the only one)"), Options.optional)
const tier = Options.choice("tier", ["lean", "standard", "deep"]).pipe(Options.withDescription("lean 4,000, standard 12,000, deep 25,000 tokens (default: briefTier in .ai/config.json)"), Options.optional)
const budget = Options.integer("budget").pipe(Options.withDescription("an exact token budget instead of a tier (1,000 or more)"), Options.optional)

const input = (o: { readonly bundle: Option.Option<string>; readonly tier: Option.Option<"lean" | "standard" | "deep">; readonly budget: Option.Option<number> }) => ({
  bundle: Option.getOrUndefined(o.bundle),
  cwd: callerContext().cwd,
  tier: Option.getOrUndefined(o.tier),
  budget: Option.getOrUndefined(o.budget)
})

const writeView: View<BriefWrite> = {
  text: (r, s) =>
    [
      ...r.files.map((f) => `${f.action === "unchanged" ? s.dim("unchanged") : f.action}  ${f.path}`),
      `  ${r.tokens} of ${r.budget} tokens (${r.tier}): ${r.content} items as content, ${r.pointers} as pointers${r.more === 0 ? "" : `, ${r.more} more in .ai/index.json`}`,
      ...r.warnings.map((w) => s.yellow(`  ${w}`)),
      ...(r.proposal === undefined ? [] : [s.dim(`  proposal ${shortId(r.proposal.id)} (undo: akm proposal revert ${shortId(r.proposal.id)})`)])
    ].join("\n"),
  rows: (r) => r.files
}

const checkView: View<BriefCheck> = {
  text: (r, s) =>
    r.ok
      ? `${s.green("✓")} .ai/BRIEF.md and .ai/index.json are up to date (${r.tokens} of ${r.budget} tokens, ${r.tier})`
      : [...r.problems.map((p) => `${p.path}  ${s.red("stale")}  ${p.message}`), `${s.red("✗")} the brief is stale: run akm brief write`].join("\n"),
  rows: (r) => r.problems
}

const explainView: View<BriefExplain> = {
  text: (r, s) =>
    [
      `${r.tokens} of ${r.budget} tokens (${r.tier})`,
      table(r.items.map((i) => [i.placement === "content" ? s.green("in") : i.placement === "pointer" ? s.yellow("pointer") : s.dim("out"), i.section, `value ${i.score}`, `${i.tokens} tok`, i.path, s.dim(i.why)]))
    ].join("\n"),
  rows: (r) => r.items
}

const writeCommand = Command.make("write", { tier, budget, bundle, ...globalOptions }, (o) => runCommand(o, briefWrite(input(o)), writeView)).pipe(
  Command.withDescription("Write .ai/BRIEF.md (hard-capped in o200k tokens) and .ai/index.json (every artifact). Example: akm brief write --tier lean")
)

const checkCommand = Command.make("check", { tier, budget, bundle, ...globalOptions }, (o) => runCommand(o, briefCheck(input(o)), checkView, (r) => (r.ok ? 0 : 1))).pipe(
  Command.withDescription("Check the brief and index.json against a fresh render; exits 1 naming what is stale. Example: akm brief check")
)

const explainCommand = Command.make("explain", { tier, budget, bundle, ...globalOptions }, (o) => runCommand(o, briefExplain(input(o)), explainView)).pipe(
  Command.withDescription("Show why each item is in the brief, a pointer, or out (value, tokens, section). Example: akm brief explain")
)

export const briefCommand = Command.make("brief").pipe(
  Command.withDescription("The token-capped brief a new agent session reads first: write, check, explain. Example: akm brief write"),
  Command.withSubcommands([writeCommand, checkCommand, explainCommand])
)
