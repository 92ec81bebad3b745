import { Cron } from "croner"

/**
 * Task schedules (spec 07 §3): five crontab fields (minute hour day-of-month
 * month day-of-week) or one of the `@` macros crontab understands. croner
 * checks values, ranges and steps and computes fire times; akm only keeps
 * what croner accepts but crontab(5) does not (`L`, `W`, `#`, `?`, seconds)
 * out, and names the field a problem is in. `@reboot` has no fire times: it
 * runs "at boot".
 */
export const SCHEDULE_MACROS: ReadonlyArray<string> = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly", "@reboot"]

const FIELDS: ReadonlyArray<{ readonly name: string; readonly min: number; readonly max: number; readonly names?: ReadonlyArray<string> }> = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] },
  // 0 and 7 are both Sunday, as in crontab(5).
  { name: "day of week", min: 0, max: 7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] }
]

// Vixie cron semantics: 5 fields, and a day matches when day-of-month OR day-of-week does.
const cron = (pattern: string): Cron => new Cron(pattern, { paused: true, mode: "5-part", domAndDow: false })

const croner = (pattern: string): string | undefined => {
  try {
    cron(pattern)
    return undefined
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).replace(/^CronPattern:\s*/, "").replace(/\.$/, "")
  }
}

/**
 * Tokens crontab does not know (croner's L, W, #, ?), names outside a field's
 * list, and values out of range (croner's own message counts months and days
 * from 0). Steps are croner's to check.
 */
const tokenProblem = (part: string, field: (typeof FIELDS)[number]): string | undefined => {
  for (const item of part.split(",")) {
    const [range = ""] = item.split("/")
    for (const token of range.split("-")) {
      const value = Number(token)
      if (/^\d+$/.test(token) && (value < field.min || value > field.max)) return `${value} is outside ${field.min}–${field.max}`
    }
  }
  for (const token of part.split(/[,/-]/)) {
    if (token === "*" || /^\d+$/.test(token)) continue
    if (/^[A-Za-z]+$/.test(token) && field.names?.includes(token.toUpperCase()) === true) continue
    return `'${token}' is not a number${field.names === undefined ? "" : ` or a name (${field.names[0]}–${field.names[field.names.length - 1]})`}`
  }
  return undefined
}

/** What is wrong with a schedule, naming the field; undefined when crontab would take it. */
export const scheduleProblem = (schedule: string): string | undefined => {
  const text = schedule.trim()
  if (text.startsWith("@")) {
    return SCHEDULE_MACROS.includes(text.toLowerCase()) ? undefined : `unknown macro '${text}'; use one of ${SCHEDULE_MACROS.join(", ")}`
  }
  const fields = text.split(/\s+/)
  if (fields.length !== FIELDS.length) {
    return `expected 5 cron fields (minute hour day-of-month month day-of-week) or a macro such as @daily; found ${fields.length}`
  }
  for (let i = 0; i < FIELDS.length; i++) {
    const field = FIELDS[i]!
    const own = tokenProblem(fields[i]!, field)
    if (own !== undefined) return `field ${i + 1} (${field.name}): ${own}`
    // The field alone, every other one `*`: croner's message then belongs to this field.
    const problem = croner(FIELDS.map((_, j) => (j === i ? fields[i]! : "*")).join(" "))
    if (problem !== undefined) return `field ${i + 1} (${field.name}): ${problem}`
  }
  const whole = croner(fields.join(" "))
  if (whole !== undefined) return whole
  if (cron(fields.join(" ")).nextRun() === null) return "no date matches it (e.g. 30 February); it would never run"
  return undefined
}

/** When a schedule fires next: up to `count` times after `from`; "boot" for @reboot, [] for an invalid one. */
export const nextFireTimes = (schedule: string, from: Date, count = 3): ReadonlyArray<Date> | "boot" => {
  const text = schedule.trim().toLowerCase()
  if (text === "@reboot") return "boot"
  if (scheduleProblem(schedule) !== undefined) return []
  return cron(text.startsWith("@") ? text : schedule.trim()).nextRuns(count, from)
}

/** Fire times as people read them: local time, minute precision, with the UTC offset; @reboot is "at boot". */
export const describeFireTimes = (times: ReadonlyArray<Date> | "boot"): ReadonlyArray<string> =>
  times === "boot" ? ["at boot"] : times.map(localMinute)

const pad = (n: number): string => String(n).padStart(2, "0")

const localMinute = (date: Date): string => {
  const offset = -date.getTimezoneOffset()
  const sign = offset >= 0 ? "+" : "-"
  const abs = Math.abs(offset)
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())} ${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}
