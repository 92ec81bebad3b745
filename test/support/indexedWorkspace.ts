import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles } from "../../src/programs/indexBundles.js"

/**
 * Bundles for show/curate/feedback/health program tests: real folders added
 * with `bundleAdd` and indexed by `akm index`'s program, so the tests need
 * nothing but AkmTest.
 */

export const CANARY = "CANARY_7f3e_show_must_never_print"

export const guideText = [
  "---",
  "type: guide",
  "title: Deploy guide",
  "description: How to deploy the web app",
  "tags: [deploy, ops]",
  "---",
  "# Deploy guide",
  "",
  "Read this before a release. See [the runbook](runbook.md).",
  "",
  "## Install",
  "",
  ...Array.from({ length: 30 }, (_, i) => `Install step ${i + 1}: run the installer with the flags the platform team documented.`),
  "",
  "## Configure",
  "",
  ...Array.from({ length: 30 }, (_, i) => `Configure step ${i + 1}: set the value in config.yaml and restart the service.`),
  "",
  "### Secrets",
  "",
  "Never commit them.",
  ""
].join("\n")

export const notesFiles: Record<string, string> = {
  "index.md": "# Notes\n\nThe team notes.\n",
  "guide.md": guideText,
  "runbook.md": "---\ntype: runbook\ntitle: Runbook\n---\n# Runbook\n\nRestart the service.\n"
}

export const skillsFiles: Record<string, string> = {
  "pdf/SKILL.md": "---\nname: pdf\ndescription: Fill PDF forms. Use when a user asks to fill a PDF form.\n---\n# PDF\n\nSee [forms](references/forms.md) and run `scripts/fill.py`.\n\n## Steps\n\nOpen the form.\n",
  "pdf/references/forms.md": "# Forms\n\nField names of the common forms.\n",
  "pdf/scripts/fill.py": "#!/usr/bin/env python3\n# fill a form\nprint('filled')\n"
}

export const secretsFiles: Record<string, string> = {
  "env/app.env": `# akm:public App settings\nPORT=3000\nAPI_TOKEN=${CANARY}\n`,
  "secrets/npm-token": `${CANARY}\n`
}

const made: Array<string> = []
/** Removes every folder made by `folder` (call from afterAll). */
export const removeFolders = () => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

export const folder = (files: Record<string, string>): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "akm-items-")))
  made.push(dir)
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), text)
  }
  return dir
}

const caller = { cwd: os.tmpdir(), home: os.tmpdir() }

/** Adds folders as bundles (first = default) and indexes them; returns their roots by name. */
export const indexedWorkspace = (bundles: Readonly<Record<string, Record<string, string>>>) =>
  Effect.gen(function* () {
    const roots: Record<string, string> = {}
    for (const [name, files] of Object.entries(bundles)) {
      roots[name] = folder(files)
      yield* bundleAdd({ source: roots[name]!, name, ...caller })
    }
    yield* indexBundles({})
    return roots
  })
