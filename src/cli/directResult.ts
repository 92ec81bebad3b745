import { shortId } from "../domain/Proposal.js"
import type { DirectResult } from "../programs/proposals/direct.js"
import type { View } from "./render.js"

/** How remember, import and create report: what was written (or proposed) and the proposal behind it. */
export const directView = (verb: string): View<DirectResult> => ({
  text: (r, s) =>
    r.status === "accepted"
      ? [`${s.green("✓")} ${verb} ${r.ref ?? `${r.bundle}//${r.files[0] ?? ""}`}`, `  ${r.path}`, s.dim(`  proposal ${shortId(r.id)} (undo: akm proposal revert ${shortId(r.id)})`)].join("\n")
      : [`${s.yellow("…")} proposal ${shortId(r.id)} is ${r.status}: ${r.title}`, ...(r.hint === undefined ? [] : [s.dim(`  ${r.hint}`)])].join("\n")
})
