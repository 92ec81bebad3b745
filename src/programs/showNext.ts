import { shellQuote } from "../domain/ShellQuote.js"

/** The `akm show …` command that opens a ref, as hits and hints print it (quoted for a POSIX shell when needed). */
export const showNext = (ref: string, ...flags: ReadonlyArray<string>): string => ["akm show", shellQuote(ref), ...flags].join(" ")
