import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, truncateSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The bad-input corpus of spec 10 §3, built fresh in a temp dir: the static
 * files of test/fixtures/bad-inputs/ plus the inputs that cannot be committed
 * (encodings, huge files, symlinks, twin names, a FIFO). Beside the corpus
 * root lies an `outside/` folder whose canary text must never be read.
 */

const staticDir = fileURLToPath(new URL("../fixtures/bad-inputs/", import.meta.url))

export const CANARY = "CANARY-7f3a9c-outside-the-root"

export interface BadInputs {
  /** Holds `root/` and `outside/`; remove it when done. */
  readonly base: string
  readonly root: string
  readonly outside: string
  /** Files whose content is broken (bundle-relative): each must be indexed anyway or diagnosed when an adapter takes it. */
  readonly badContent: ReadonlyArray<string>
  /** Entries the walk itself must report, with the code it reports. */
  readonly walkFindings: ReadonlyArray<{ readonly path: string; readonly code: string }>
  /** Whether a FIFO was created (mkfifo may be missing). */
  readonly fifo: boolean
}

const write = (root: string, rel: string, content: string | Uint8Array) => {
  mkdirSync(dirname(join(root, rel)), { recursive: true })
  writeFileSync(join(root, rel), content)
}

export const buildBadInputs = (): BadInputs => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "akm-bad-inputs-")))
  const root = join(base, "root")
  const outside = join(base, "outside")
  cpSync(staticDir, root, { recursive: true, filter: (source) => source !== join(staticDir, "README.md") })
  write(outside, "secret.md", `---\ntype: note\n---\n# Secret\n\n${CANARY}\n`)
  write(outside, "dir/inner.md", `# Inner\n\n${CANARY}\n`)

  // Encodings.
  write(root, "bom.md", `\uFEFF---\ntype: note\ntitle: With BOM\n---\n# BOM\n\nText after a byte-order mark.\n`)
  write(root, "crlf.md", "---\r\ntype: note\r\ntitle: CRLF\r\n---\r\n# CRLF\r\n\r\nWindows line endings.\r\n")
  write(root, "invalid-utf8.md", Buffer.concat([Buffer.from("---\ntype: note\n---\n# Caf"), Buffer.from([0xe9, 0xff, 0xfe]), Buffer.from("\n")]))
  write(root, "nul-bytes.md", Buffer.from("---\ntype: note\n---\n# NUL\u0000inside\n", "utf8"))
  write(root, "binary.md", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]))
  write(root, "env/broken.env", Buffer.from([0x41, 0x3d, 0xff, 0x00, 0x0a]))

  // Size and shape.
  write(root, "big.md", "")
  truncateSync(join(root, "big.md"), 20 * 1024 * 1024)
  write(root, "long-line.md", `---\ntype: note\n---\n${"x".repeat(100_000)}\n`)
  write(root, "nested-lists.md", `---\ntype: note\n---\n${"- ".repeat(5_000)}deep\n`)
  write(root, "nested-quotes.md", `${"> ".repeat(5_000)}deep\n`)
  write(root, "deep-yaml.md", `---\ntype: note\ndeep: ${"[".repeat(5_000)}${"]".repeat(5_000)}\n---\n# Deep YAML\n`)
  write(root, "deep-task.yml", `version: 2\nschedule: "@daily"\nprompt: ${"[".repeat(5_000)}${"]".repeat(5_000)}\n`)
  write(root, "deep-manifest/manifest.json", `{"url": "https://x.org/", "fetchedAt": "2026-01-01T00:00:00Z", "pages": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`)

  // Symbolic links: loops and escapes.
  symlinkSync(".", join(root, "loop"))
  symlinkSync("self.md", join(root, "self.md"))
  symlinkSync("ping.md", join(root, "pong.md"))
  symlinkSync("pong.md", join(root, "ping.md"))
  symlinkSync(join(outside, "secret.md"), join(root, "escape.md"))
  symlinkSync(outside, join(root, "escape-dir"))
  symlinkSync("../../outside/secret.md", join(root, "pages/escape-page.md"))

  // Names.
  write(root, "cafe\u0301.md", "---\ntype: note\n---\n# NFD name\n")
  write(root, "caf\u00e9.md", "---\ntype: note\n---\n# NFC name\n")
  write(root, "Twin.md", "---\ntype: note\n---\n# Upper twin\n")
  write(root, "twin.md", "---\ntype: note\n---\n# Lower twin\n")
  write(root, "with space.md", "---\ntype: note\n---\n# Spaces in the name\n")
  write(root, "new\nline.md", "---\ntype: note\n---\n# Newline in the name\n")

  let fifo = false
  try {
    execFileSync("mkfifo", [join(root, "pipe.md")], { stdio: "ignore" })
    fifo = true
  } catch {
    // No mkfifo here; the FIFO case is skipped.
  }

  return {
    base,
    root,
    outside,
    badContent: [
      "malformed-frontmatter.md", "unterminated-frontmatter.md", "non-mapping-frontmatter.md", "duplicate-keys.md", "alias-bomb.md",
      "bom.md", "crlf.md", "invalid-utf8.md", "nul-bytes.md", "binary.md", "env/broken.env", "long-line.md", "nested-lists.md",
      "nested-quotes.md", "deep-yaml.md", "deep-task.yml", "Bad_Name/SKILL.md", "bad-workflow.md", "bad-task.yml", "odd-links.md"
    ],
    walkFindings: [
      { path: "big.md", code: "file-too-large" },
      { path: "loop", code: "symlink-loop" },
      { path: "self.md", code: "symlink-loop" },
      { path: "ping.md", code: "symlink-loop" },
      { path: "pong.md", code: "symlink-loop" },
      { path: "escape.md", code: "symlink-escape" },
      { path: "escape-dir", code: "symlink-escape" },
      { path: "pages/escape-page.md", code: "symlink-escape" },
      { path: "caf\u00e9.md", code: "case-collision" },
      ...(fifo ? [{ path: "pipe.md", code: "special-file" }] : [])
    ],
    fifo
  }
}
