/**
 * SQL text with its bound parameters, for the search path's read statements
 * (query.ts, filters.ts). Search runs them on a plain better-sqlite3
 * connection (reader.ts): building and compiling @effect/sql statements cost
 * more than most of these queries take to run (docs/decisions/0002-start-up.md).
 */
export interface SqlText {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

const isSqlText = (value: unknown): value is SqlText => typeof value === "object" && value !== null && "text" in value && "params" in value

/** A statement: interpolated SqlText is spliced in, any other value becomes a `?` parameter. */
export const sql = (strings: TemplateStringsArray, ...values: ReadonlyArray<unknown>): SqlText => {
  let text = strings[0]!
  const params: Array<unknown> = []
  values.forEach((value, i) => {
    if (isSqlText(value)) {
      text += value.text
      params.push(...value.params)
    } else {
      text += "?"
      params.push(value)
    }
    text += strings[i + 1]!
  })
  return { text, params }
}

/** Text taken as it is (never user input). */
export const literal = (text: string): SqlText => ({ text, params: [] })

/** `(?, ?, …)` for the values. */
export const inList = (values: ReadonlyArray<unknown>): SqlText => ({ text: `(${values.map(() => "?").join(",")})`, params: values })

/** Joins the parts with `separator`; `wrap` puts two or more in parentheses; none gives `empty`. */
export const join = (separator: string, parts: ReadonlyArray<SqlText>, wrap = false, empty = ""): SqlText => {
  if (parts.length === 0) return literal(empty)
  const text = parts.map((p) => p.text).join(separator)
  return { text: wrap && parts.length > 1 ? `(${text})` : text, params: parts.flatMap((p) => p.params) }
}

export const and = (parts: ReadonlyArray<SqlText>): SqlText => join(" AND ", parts, true, "1=1")
export const or = (parts: ReadonlyArray<SqlText>): SqlText => join(" OR ", parts, true, "1=1")
export const csv = (parts: ReadonlyArray<SqlText>): SqlText => join(", ", parts)
