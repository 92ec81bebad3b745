import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { makeWorkspace } from "../support/cli.js"

// `akm okf index [--write]` and `akm proposal refresh` end to end (issue 26 items 2 and 3).

const concept = (type: string, title: string, description: string) => `---\ntype: ${type}\ntitle: ${title}\ndescription: ${description}\n---\n# ${title}\n\nBody.\n`

describe("akm okf index and akm proposal refresh", () => {
  const workspace = makeWorkspace()
  afterAll(workspace.cleanup)

  it("okf index exits 1 with the diff on a stale index, and 0 after --write and accept", async () => {
    const root = workspace.folder("kb", {
      "index.md": "# Subdirectories\n\n* [tables](tables/index.md) - Tables, described by hand.\n",
      "tables/index.md": "# BigQuery Table\n\n* [Orders](orders.md) - One row per order.\n",
      "tables/orders.md": concept("BigQuery Table", "Orders", "One row per order."),
      "tables/customers.md": concept("BigQuery Table", "Customers", "One row per customer. Keyed by id.")
    })
    expect((await workspace.run(["bundle", "add", root, "--name", "kb"])).code).toBe(0)
    expect((await workspace.run(["config", "set", "policy.autoApply", "[]"])).code).toBe(0)

    const stale = await workspace.run(["okf", "index", "--format", "text"])
    expect(stale.code, stale.stderr).toBe(1)
    expect(stale.stdout).toContain("+* [Customers](customers.md) - One row per customer.\n")
    expect(stale.stdout).toContain("akm okf index --write")

    const written = await workspace.run(["okf", "index", "--write"])
    expect(written.code, written.stderr).toBe(0)
    const proposal = written.json().proposal
    expect(proposal).toMatchObject({ status: "pending", files: ["tables/index.md"] })
    expect((await workspace.run(["okf", "index"])).code).toBe(1)
    expect((await workspace.run(["proposal", "accept", proposal.id, "-y"])).code).toBe(0)
    const current = await workspace.run(["okf", "index"])
    expect(current.code, current.stderr).toBe(0)
    expect(current.json()).toMatchObject({ current: true, bundles: ["kb"] })
    expect(readFileSync(join(root, "tables/index.md"), "utf8")).toContain("* [Customers](customers.md) - One row per customer.\n")
  })

  it("a stale proposal's accept names proposal refresh; refresh makes a new pending proposal that accept applies", async () => {
    const root = join(workspace.root, "kb")
    const file = join(root, "tables/orders.md")
    const original = readFileSync(file, "utf8")
    const draft = join(workspace.folder("drafts"), "orders.md")
    writeFileSync(draft, original.replace("title: Orders", "title: Customer orders"))
    const made = await workspace.run(["proposal", "new", "--bundle", "kb", "--file", `tables/orders.md=@${draft}`, "--title", "Retitle orders"])
    expect(made.code, made.stderr).toBe(0)
    const id: string = made.json().id
    writeFileSync(file, original.replace("Body.", "Body, edited upstream."))

    const stale = await workspace.run(["proposal", "accept", id, "-y"])
    expect(stale.code).toBe(1)
    expect(stale.error().error.hint).toContain(`akm proposal refresh ${id.slice(0, 8)}`)

    const refreshed = await workspace.run(["proposal", "refresh", id.slice(0, 8), "--format", "text"])
    expect(refreshed.code, refreshed.stderr).toBe(0)
    expect(refreshed.stdout).toContain(`refreshed ${id.slice(0, 8)} into`)
    const next = (await workspace.run(["proposal", "list", "--status", "pending"])).json().proposals[0]
    expect(next.title).toBe("Retitle orders")
    expect((await workspace.run(["proposal", "accept", next.id, "-y"])).code).toBe(0)
    const text = readFileSync(file, "utf8")
    expect(text).toContain("title: Customer orders")
    expect(text).toContain("Body, edited upstream.")
  })
})
