import { plural } from "../domain/Plural.js"
import type { CurateResult } from "../programs/curate.js"
import type { View } from "./render.js"

// The view of `akm curate`, shared by the @effect/cli command (curate.ts) and the start-up fast path (fast/curate.ts).

/** Full items print their text under a header; cards one line each with the command that opens them. */
export const curateView: View<CurateResult> = {
  text: (r, s) =>
    r.items.length === 0
      ? `nothing found for "${r.task}" — try other words, or check \`akm health\``
      : [
        ...r.items.flatMap((item) =>
          item.level === "full"
            ? [s.bold(`## ${item.name}  ${s.dim(`${item.type ?? "item"}  ${item.ref}  ${plural(item.tokens, "token")}`)}`), "", item.content ?? "", ""]
            : [`- ${s.bold(item.name)} ${s.dim(`(${item.type ?? "item"})`)}${item.description === null ? "" : `: ${item.description}`}  ${s.dim(`→ ${item.next}`)}`]),
        "",
        s.dim(`${r.tokens} of ${r.budget} tokens, ${r.items.filter((i) => i.level === "full").length} in full, ${r.items.filter((i) => i.level === "card").length} as cards`)
      ].join("\n"),
  rows: (r) => r.items
}
