import type { InfoResult } from "../programs/info.js"
import { formatBytes, table, type View } from "./render.js"
import { storageText } from "./storageText.js"

// The view of `akm info`, shared by the @effect/cli command (info.ts) and the start-up fast path (fast/info.ts).

export const infoView: View<InfoResult> = {
  text: (r, s) => {
    const db = (d: InfoResult["databases"]["state"]) => (d.exists ? `${d.path}  ${s.dim(formatBytes(d.bytes))}` : `${d.path}  ${s.yellow("(not created; run akm init)")}`)
    return table([
      ["akm", `${r.version} (node ${r.node})`],
      ["config", r.paths.config],
      ["data", r.paths.dataDir],
      ["cache", r.paths.cacheDir],
      ["state.db", db(r.databases.state)],
      ["index.db", db(r.databases.index)],
      ["logs.db", db(r.databases.logs)],
      ["storage", r.storage.reachable ? storageText(r.storage) : s.yellow(storageText(r.storage))],
      ["bundles", `${r.bundles}${r.defaultBundle === null ? "" : ` (default: ${r.defaultBundle})`}`]
    ])
  }
}
