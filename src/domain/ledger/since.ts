import { isoDay } from "./FailureObservation.js"

const DAY = 86_400_000
const RELATIVE = /^(\d{1,5})([dw])$/i

/**
 * `ledger mine-git --since`: `90d`, `12w`, or an ISO date/timestamp → epoch
 * milliseconds, or undefined when it is neither. Relative spans count back
 * from `now`.
 */
export const parseSince = (text: string, now: number): number | undefined => {
  const trimmed = text.trim()
  const relative = RELATIVE.exec(trimmed)
  if (relative !== null) return now - Number(relative[1]) * (relative[2]!.toLowerCase() === "w" ? 7 : 1) * DAY
  if (isoDay(trimmed) === undefined) return undefined
  const at = Date.parse(trimmed.length === 10 ? `${trimmed}T00:00:00Z` : trimmed.replace(" ", "T"))
  return Number.isNaN(at) ? undefined : at
}
