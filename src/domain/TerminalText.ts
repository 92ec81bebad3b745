/**
 * Text bound for a terminal is made inert here: every C0 control but newline
 * and tab, DEL and every C1 control becomes visible caret text, so an escape
 * sequence from a bundle (CSI, OSC 52 clipboard writes, title changes, their
 * 8-bit C1 forms) prints as plain characters and does nothing. Replacing the
 * introducer is enough: what follows it is printable text. Pure; used by the
 * CLI's render boundary and by progress lines on stderr.
 */

// eslint-disable-next-line no-control-regex -- control characters are exactly what must not reach a terminal
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/** Caret notation: ESC → `^[`, BEL → `^G`, CR → `^M`, DEL → `^?`; a C1 control as its 7-bit form (CSI U+009B → `^[[`). */
const caret = (c: string): string => {
  const n = c.charCodeAt(0)
  return n === 0x7f ? "^?" : n < 0x20 ? `^${String.fromCharCode(n + 0x40)}` : `^[${String.fromCharCode(n - 0x40)}`
}

/** Makes text safe for a terminal: controls other than `\n` and `\t` become visible caret text. */
export const neutralise = (s: string): string => s.replace(CONTROL, caret)
