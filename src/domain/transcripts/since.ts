const UNIT: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/**
 * `--since`: `30m`, `24h`, `7d`, `2w`, or an ISO date/time → epoch
 * milliseconds; undefined when it is none of these.
 */
export const parseSinceSpan = (text: string, now: number): number | undefined => {
  const trimmed = text.trim()
  const relative = /^(\d{1,6})([mhdw])$/i.exec(trimmed)
  if (relative !== null) return now - Number(relative[1]) * UNIT[relative[2]!.toLowerCase()]!
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed)) return undefined
  const at = Date.parse(trimmed.length === 10 ? `${trimmed}T00:00:00Z` : trimmed)
  return Number.isNaN(at) ? undefined : at
}
