import { clip, isoDay, type FailureObservation, type InputProblem } from "./FailureObservation.js"

/**
 * The TSV form of `ledger import-ci` (spec 08 §2): one failure per line, the
 * tab-separated columns `date, module, operation, error_class, message`. The
 * header row is optional: a first line that starts with `date` is the header
 * and must then name exactly these columns. Blank lines and lines starting
 * with `#` are skipped; `message` may be empty or left out; `date` is an ISO
 * date or timestamp. Any bad line fails the whole file (every one is listed),
 * so a half-imported report never lands.
 */

export const TSV_COLUMNS = ["date", "module", "operation", "error_class", "message"] as const

export type TsvResult =
  | { readonly _tag: "Parsed"; readonly observations: ReadonlyArray<FailureObservation> }
  | { readonly _tag: "BadLines"; readonly problems: ReadonlyArray<InputProblem> }

const lineProblem = (cells: ReadonlyArray<string>, line: number): InputProblem | undefined => {
  if (cells.length < 4 || cells.length > 5) return { line, message: `${cells.length} column${cells.length === 1 ? "" : "s"} where ${TSV_COLUMNS.length} are expected (${TSV_COLUMNS.join(", ")}), separated by tabs` }
  const [date, module, operation, errorClass] = cells.map((cell) => cell.trim())
  if (isoDay(date ?? "") === undefined) return { line, message: `'${date}' is not an ISO date (YYYY-MM-DD)` }
  const empty = [["module", module], ["operation", operation], ["error_class", errorClass]].find(([, value]) => value === "")
  return empty === undefined ? undefined : { line, message: `${empty[0]} is empty` }
}

/** `origin` is the file's name, used in observations as `<origin>:<line>`. */
export const parseCiTsv = (text: string, origin: string): TsvResult => {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/)
  const observations: Array<FailureObservation> = []
  const problems: Array<InputProblem> = []
  let first = true
  lines.forEach((raw, index) => {
    const line = index + 1
    if (raw.trim() === "" || raw.trimStart().startsWith("#")) return
    const cells = raw.split("\t")
    if (first) {
      first = false
      if (cells[0]?.trim().toLowerCase() === "date") {
        const names = cells.map((cell) => cell.trim().toLowerCase())
        if (names.join("\t") !== TSV_COLUMNS.join("\t")) problems.push({ line, message: `the header must be ${TSV_COLUMNS.join(", ")} (tab-separated), not ${names.join(", ")}` })
        return
      }
    }
    const problem = lineProblem(cells, line)
    if (problem !== undefined) {
      problems.push(problem)
      return
    }
    const [date, module, operation, errorClass, message] = cells.map((cell) => cell.trim())
    observations.push({
      date: isoDay(date!)!,
      module: module!,
      operation: operation!,
      errorClass: errorClass!,
      message: clip(message === undefined || message === "" ? errorClass! : message),
      source: "ci",
      origin: `${origin}:${line}`
    })
  })
  return problems.length > 0 ? { _tag: "BadLines", problems } : { _tag: "Parsed", observations }
}
