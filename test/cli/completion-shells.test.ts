import { execFile, spawnSync } from "node:child_process"
import { chmodSync, writeFileSync } from "node:fs"
import { delimiter, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorkspace, repoRoot } from "../support/cli.js"

// Issue "The CLI a newcomer trusts", item 4: each script of `akm completions` in its real shell, with `akm` on PATH
// (the built bin/akm.js) over a temp workspace. A shell that is not installed is skipped with the reason printed
// (.ci/run installs zsh and fish when it runs as root).

const installed = (shell: string): boolean => spawnSync(shell, ["-c", "exit 0"], { stdio: "ignore" }).status === 0
const shells = { bash: installed("bash"), zsh: installed("zsh"), fish: installed("fish") }
for (const [shell, present] of Object.entries(shells)) {
  if (!present) console.log(`completion-shells: ${shell} is not installed, so its completion tests are skipped (apt-get install ${shell})`)
}

const workspace = makeWorkspace()
const bin = workspace.folder("bin")
const env = { ...workspace.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ""}` }

/** Runs `shell args…` with the completion line in $LINE; resolves to stdout's non-empty lines. */
const inShell = (shell: string, args: ReadonlyArray<string>, line: string, extra: Record<string, string> = {}): Promise<ReadonlyArray<string>> =>
  new Promise((done, fail) => {
    execFile(shell, args, { cwd: workspace.root, env: { ...env, ...extra, LINE: line }, encoding: "utf8", timeout: 30_000 }, (error, stdout, stderr) => {
      if (error !== null) return fail(new Error(`${shell} failed on ${JSON.stringify(line)}: ${error.message}\n${stderr}`))
      done(stdout.split("\n").filter((l) => l !== ""))
    })
  })

beforeAll(async () => {
  writeFileSync(join(bin, "akm"), `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot, "bin", "akm.js")}" "$@"\n`)
  chmodSync(join(bin, "akm"), 0o755)
  const notes = workspace.folder("notes", { "hello.md": "# Hello\n\nhi\n", "deploy/rotate.md": "# Rotate\n\nkeys\n" })
  const ops = workspace.folder("ops", { "runbook.md": "# Runbook\n\nsteps\n" })
  for (const [dir, name] of [[notes, "notes"], [ops, "ops"]] as const) {
    const added = await workspace.run(["bundle", "add", dir, "--name", name])
    expect(added.code, added.stderr).toBe(0)
  }
  const indexed = await workspace.run(["index", "--quiet"])
  expect(indexed.code, indexed.stderr).toBe(0)
}, 60_000)
afterAll(workspace.cleanup)

// As bash does on TAB: COMP_LINE and COMP_POINT, COMP_WORDS split at COMP_WORDBREAKS (`--format=j` is three words).
const BASH = `eval "$(akm completions bash)"
complete -p akm
COMP_LINE="$LINE"; COMP_POINT=\${#COMP_LINE}
read -r -a COMP_WORDS <<< "\${COMP_LINE//=/ = }"
[[ "$COMP_LINE" == *[[:space:]] || "$COMP_LINE" == *= ]] && COMP_WORDS+=("")
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
_akm_complete akm "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "\${COMPREPLY[@]}"`

describe.skipIf(!shells.bash)("bash", () => {
  const complete = async (line: string) => {
    const [registration, ...replies] = await inShell("bash", ["--norc", "--noprofile", "-c", BASH], line)
    expect(registration).toBe("complete -o default -F _akm_complete akm")
    return replies
  }

  it("commands, subcommands and options", async () => {
    expect(await complete("akm se")).toEqual(["search", "secret"])
    expect(await complete("akm bundle re")).toEqual(["rename", "remove"])
    expect(await complete("akm show --l")).toEqual(["--level", "--lines"])
  })

  it("--format j offers json and jsonl, written after the = when there is one", async () => {
    expect(await complete("akm --format j")).toEqual(["json", "jsonl"])
    expect(await complete("akm search --format=j")).toEqual(["json", "jsonl"])
    expect(await complete("akm search --bundle=")).toEqual(["notes", "ops"])
  })

  it("bundle names and refs from the index", async () => {
    expect(await complete("akm bundle remove ")).toEqual(["notes", "ops"])
    expect(await complete("akm show notes//")).toEqual(["notes//deploy/rotate", "notes//hello"])
    expect(await complete("akm feedback o")).toEqual(["ops//"])
  })

  it("works through an alias, as docs/getting-started.md suggests for a clone (no akm on PATH)", async () => {
    const script = `shopt -s expand_aliases\nalias akm='"${process.execPath}" "${join(repoRoot, "bin", "akm.js")}"'\n${BASH}`
    const replies = await inShell("bash", ["--norc", "--noprofile", "-c", script], "akm bundle re", { PATH: process.env.PATH ?? "" })
    expect(replies.slice(1)).toEqual(["rename", "remove"])
  })

  it("an unknown command offers nothing (bash then completes file names: -o default)", async () => {
    expect(await complete("akm frobnicate ")).toEqual([])
  })
})

// The completion system's own functions are stand-ins here, printing what _akm hands them; the next test runs the real one.
const ZSH = `compdef() { print -r -- "compdef $*" }
compadd() { local s=""; while [[ $1 != -- ]]; do [[ $1 == -S ]] && s=" (no space)"; shift; done; shift; local c; for c in "$@"; do print -r -- "$c$s"; done }
_files() { print -r -- "(files)" }
compset() { : }
eval "$(akm completions zsh)"
words=(\${(z)LINE}); [[ $LINE == *" " ]] && words+=("")
CURRENT=\${#words}
_akm`

// The real completion system in an interactive zsh on a pseudo-terminal: type the line and TAB, wait for EXPECT.
const ZSH_PTY = `zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z 'PS1="> "; autoload -Uz compinit; compinit -u -D; source <(akm completions zsh); print RE""ADY'
zpty -r z out '*READY*'
zpty -n -w z "$LINE"$'\\t'
zpty -r z out "*$EXPECT*" && print -r -- FOUND
zpty -d z`

describe.skipIf(!shells.zsh)("zsh", () => {
  const complete = async (line: string) => {
    const [registration, ...replies] = await inShell("zsh", ["-f", "-c", ZSH], line)
    expect(registration).toBe("compdef _akm akm")
    return replies
  }

  it("commands, options, --format values (also after =), bundle names and refs", async () => {
    expect(await complete("akm bundle re")).toEqual(["rename", "remove"])
    expect(await complete("akm show --l")).toEqual(["--level", "--lines"])
    expect(await complete("akm --format j")).toEqual(["json", "jsonl"])
    expect(await complete("akm search --format=j")).toEqual(["json", "jsonl"])
    expect(await complete("akm bundle remove ")).toEqual(["notes", "ops"])
    expect(await complete("akm show notes//")).toEqual(["notes//deploy/rotate", "notes//hello"])
    expect(await complete("akm show no")).toEqual(["notes// (no space)"])
  })

  it("where akm offers nothing, file names", async () => {
    expect(await complete("akm bundle add ./")).toEqual(["(files)"])
  })

  it("the real completion system completes a TAB through the script", async () => {
    expect(await inShell("zsh", ["-f", "-c", ZSH_PTY], "akm bundle rem", { EXPECT: "remove" })).toContain("FOUND")
    expect(await inShell("zsh", ["-f", "-c", ZSH_PTY], "akm show notes//deploy/r", { EXPECT: "notes//deploy/rotate" })).toContain("FOUND")
  })
})

describe.skipIf(!shells.fish)("fish", () => {
  const complete = (line: string) => inShell("fish", ["--no-config", "-c", 'akm completions fish | source; complete -C "$LINE"'], line)

  it("commands, options, --format values (also after =), bundle names and refs", async () => {
    expect(await complete("akm se")).toEqual(["search", "secret"])
    expect(await complete("akm show --l")).toEqual(["--level", "--lines"])
    expect(await complete("akm --format j")).toEqual(["json", "jsonl"])
    expect(await complete("akm search --format=j")).toEqual(["--format=json", "--format=jsonl"])
    expect(await complete("akm bundle remove ")).toEqual(["notes", "ops"])
    expect(await complete("akm show notes//")).toEqual(["notes//deploy/rotate", "notes//hello"])
  })

  it("where akm offers nothing, file names", async () => {
    expect(await complete("akm bundle add no")).toEqual(["notes/"])
  })
})
