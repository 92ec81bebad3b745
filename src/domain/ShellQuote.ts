/**
 * Commands akm prints for a person to copy (hints, `next`) carry names and
 * refs that come from bundles, registries or users: each such word is quoted
 * for a POSIX shell, so pasting `akm index --bundle 'y$(id)'` runs akm and
 * nothing else.
 */

/** Words a POSIX shell takes literally without quotes. */
const PLAIN = /^[A-Za-z0-9@%+=:,./_-]+$/

/** One word for a POSIX shell: bare when plain, else in single quotes (an embedded `'` as `'\''`). */
export const shellQuote = (word: string): string => (PLAIN.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)

/** A command line from a fixed command and words that may come from anywhere: `shellCommand("akm index --bundle", name)`. */
export const shellCommand = (command: string, ...words: ReadonlyArray<string>): string => [command, ...words.map(shellQuote)].join(" ")
