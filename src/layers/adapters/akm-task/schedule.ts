/**
 * Task schedules (spec 07 §3): a five-field cron expression (minute hour
 * day-of-month month day-of-week, with `*`, lists, ranges, steps and
 * JAN–DEC / SUN–SAT names) or one of the `@` macros crontab understands.
 * The definition only has to be valid; nothing here schedules anything.
 */
export const SCHEDULE_MACROS: ReadonlyArray<string> = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly", "@reboot"]

interface CronField {
  readonly name: string
  readonly min: number
  readonly max: number
  readonly names?: ReadonlyArray<string>
}

const FIELDS: ReadonlyArray<CronField> = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] },
  // 0 and 7 are both Sunday, as in crontab(5).
  { name: "day of week", min: 0, max: 7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] }
]

const valueOf = (text: string, field: CronField): number | undefined => {
  if (/^\d+$/.test(text)) return Number(text)
  const index = field.names?.indexOf(text.toUpperCase()) ?? -1
  if (index === -1) return undefined
  return field.name === "month" ? index + 1 : index
}

const partProblem = (part: string, field: CronField): string | undefined => {
  const [range, step, extra] = part.split("/")
  if (extra !== undefined || range === undefined || range === "") return `'${part}' is not a value, range or step`
  if (step !== undefined && !/^[1-9]\d*$/.test(step)) return `step '${step}' in '${part}' must be a positive whole number`
  if (range === "*") return undefined
  const bounds = range.split("-")
  if (bounds.length > 2) return `'${range}' is not a value or a range`
  const values: Array<number> = []
  for (const bound of bounds) {
    const value = valueOf(bound, field)
    if (value === undefined) return `'${bound}' is not a number${field.names === undefined ? "" : ` or a name (${field.names[0]}–${field.names[field.names.length - 1]})`}`
    if (value < field.min || value > field.max) return `${value} is outside ${field.min}–${field.max}`
    values.push(value)
  }
  if (values.length === 2 && values[0]! > values[1]!) return `range '${range}' runs backwards`
  return undefined
}

/** What is wrong with a schedule, or undefined when it is valid. */
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
    for (const part of fields[i]!.split(",")) {
      const problem = partProblem(part, field)
      if (problem !== undefined) return `field ${i + 1} (${field.name}): ${problem}`
    }
  }
  return undefined
}
