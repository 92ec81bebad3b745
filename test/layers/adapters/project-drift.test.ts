import { describe, expect, it } from "vitest"
import { starterContract } from "../../../src/programs/ledger/initProject.js"
import { COMPONENTS_INTRO, componentsOf, firstLine, parseManifest, renderComponents, renderStack, STACK_INTRO } from "../../../src/domain/project/Maps.js"
import { BEGIN, END } from "../../../src/domain/project/Regions.js"
import { ROUTER_TARGETS } from "../../../src/domain/project/RouterTargets.js"
import { parseContract, renderNewRouter } from "../../../src/domain/project/Routers.js"
import { projectAdapter } from "../../../src/layers/adapters/project/index.js"
import { scanTree, type Tree } from "../../support/adapterHarness.js"

// Issue 21 item 5: the project adapter's lint reports router and map drift (R-CHK-1: fires and stays silent).

const CONTRACT = starterContract("shop")
const contract = () => {
  const parsed = parseContract(CONTRACT)
  if ("problem" in parsed) throw new Error(parsed.problem.message)
  return parsed.contract
}

const routers = (): Tree => Object.fromEntries(ROUTER_TARGETS.map((t) => [t.path, renderNewRouter(contract(), t)]))

const PACKAGE = JSON.stringify({ dependencies: { pg: "8.11.0" } })
const base: Tree = {
  "context/router-contract.md": CONTRACT,
  "package.json": PACKAGE,
  "src/api/README.md": "# API\n",
  "src/api/index.js": "x\n",
  "docs/adr/0001-postgres.md": "# Postgres\n\nvia pg\n"
}

const maps = (tree: Tree): Tree => {
  const files = Object.keys(tree).sort()
  const deps = parseManifest("package.json", PACKAGE)
  if ("problem" in deps) throw new Error("manifest")
  const stack = renderStack(deps.deps, [{ path: "docs/adr/0001-postgres.md", text: tree["docs/adr/0001-postgres.md"]! }])
  const components = renderComponents(componentsOf([...files, "context/stack.md", "context/components.md"]).map((c) => ({ ...c, ...(c.readme === undefined ? {} : { summary: firstLine(tree[c.readme]!) }) })))
  return { "context/stack.md": `${STACK_INTRO}${BEGIN}\n${stack}${END}\n`, "context/components.md": `${COMPONENTS_INTRO}${BEGIN}\n${components}${END}\n` }
}

const drift = (tree: Tree) => scanTree(projectAdapter, tree).diagnostics.filter((d) => d.code === "router-drift" || d.code === "map-drift").map((d) => `${d.code} ${d.path}`)

describe("project lint: router and map drift", () => {
  it("silent on generated routers and maps, and on a project that never generated any", () => {
    expect(drift(base)).toEqual([])
    const good = { ...base, ...routers() }
    expect(drift({ ...good, ...maps(good) })).toEqual([])
  })

  it("fires on a hand edit inside a router's region and on a missing router, as warnings", () => {
    const tree = { ...base, ...routers() }
    tree["CLAUDE.md"] = tree["CLAUDE.md"]!.replace("3. Never write secrets", "3. Write secrets")
    delete tree["QWEN.md"]
    const found = scanTree(projectAdapter, tree).diagnostics.filter((d) => d.code === "router-drift")
    expect(found.map((d) => [d.path, d.severity])).toEqual([["CLAUDE.md", "warning"], ["QWEN.md", "warning"]])
    expect(found[0]!.message).toContain('section "Mandatory rules"')
  })

  it("fires on a map whose dependencies changed", () => {
    const good = { ...base, ...routers() }
    const tree = { ...good, ...maps(good), "package.json": JSON.stringify({ dependencies: { pg: "9.0.0" } }) }
    expect(drift(tree)).toEqual(["map-drift context/stack.md"])
  })
})
