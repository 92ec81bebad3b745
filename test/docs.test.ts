import { existsSync, readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

/**
 * R-ARCH-6: docs/architecture.md pictures the service graph and names every
 * service in src/services/; every decision has its own page under docs/decisions/.
 */
const root = fileURLToPath(new URL("..", import.meta.url))
const architecturePath = join(root, "docs", "architecture.md")
const decisionsDir = join(root, "docs", "decisions")

const read = (path: string): string => {
  if (!existsSync(path)) throw new Error(`${path.slice(root.length)} is missing (R-ARCH-6)`)
  return readFileSync(path, "utf8")
}

const services = readdirSync(join(root, "src", "services"))
  .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
  .map((name) => basename(name, ".ts"))

const decisions = existsSync(decisionsDir) ? readdirSync(decisionsDir).filter((name) => name.endsWith(".md")) : []

describe("docs (R-ARCH-6)", () => {
  it("docs/architecture.md names every service in src/services/", () => {
    const architecture = read(architecturePath)
    const missing = services.filter((service) => !new RegExp(`\\b${service}\\b`).test(architecture))
    expect(missing, "services not named in docs/architecture.md").toEqual([])
  })

  it("docs/architecture.md shows the service graph as a diagram", () => {
    const architecture = read(architecturePath)
    // A fenced diagram (mermaid or text) or an embedded image.
    expect(/^```/m.test(architecture) || /!\[[^\]]*\]\([^)]+\)/.test(architecture)).toBe(true)
  })

  it("docs/decisions/ holds at least one decision page", () => {
    expect(decisions.length, "no docs/decisions/*.md").toBeGreaterThan(0)
  })

  it("every decision page starts with a '# ' heading", () => {
    const untitled = decisions.filter((name) => !read(join(decisionsDir, name)).startsWith("# "))
    expect(untitled, "decision pages without a leading '# ' heading").toEqual([])
  })
})
