import type { EventSource } from "../services/UsageLog.js"

/**
 * Who is calling (R-SRCH-2): `AKM_EVENT_SOURCE=agent|audit` marks agent and
 * audit runs; anything else is a person. Only user events teach utility.
 */
export const eventSource = (env: Readonly<Record<string, string | undefined>> = process.env): EventSource => {
  const value = env.AKM_EVENT_SOURCE?.trim().toLowerCase()
  return value === "agent" || value === "audit" ? value : "user"
}
