import js from "@eslint/js"
import { defineConfig, globalIgnores } from "eslint/config"
import tseslint from "typescript-eslint"

/**
 * The architecture as data (spec 00 §3). `src/` is cut into disjoint zones, one
 * per folder of the layout; each rule names the zones it guards. The zones must
 * stay disjoint because ESLint replaces (never merges) a rule's options when two
 * config blocks match one file — so every zone gets exactly one
 * `no-restricted-imports` block carrying the union of its rules.
 * test/architecture.test.ts proves every rule fires and stays silent where it should.
 */
const zones = {
  domain: { files: ["src/domain/**/*.ts"] },
  services: { files: ["src/services/**/*.ts"] },
  programs: { files: ["src/programs/**/*.ts"] },
  cli: { files: ["src/cli/**/*.ts"] },
  adapters: { files: ["src/layers/adapters/**/*.ts"] },
  layers: { files: ["src/layers/**/*.ts"], ignores: ["src/layers/adapters/**"] },
  publicApi: { files: ["src/index.ts"] },
  rest: {
    files: ["src/**/*.ts"],
    ignores: ["src/index.ts", ...["domain", "services", "programs", "cli", "layers"].map((dir) => `src/${dir}/**`)]
  }
}

const allZonesBut = (...excluded) => Object.keys(zones).filter((zone) => !excluded.includes(zone))

/** `modules` are exact import specifiers; `patterns` are gitignore-style globs over the specifier. */
const rules = [
  // R-ARCH-1: only src/layers/ touches the file system, databases, network, git or tar.
  {
    zones: allZonesBut("layers", "adapters"),
    modules: [
      "node:fs", "fs", "node:fs/promises", "fs/promises",
      "better-sqlite3", "@effect/sql-sqlite-node", "pg", "@effect/sql-pg",
      "node:http", "http", "node:https", "https", "node:net", "net", "undici",
      "isomorphic-git", "tar",
      "node:child_process", "child_process"
    ],
    patterns: ["isomorphic-git/*", "@effect/sql-sqlite-node/*", "@effect/sql-pg/*"],
    message: "only src/layers/ may touch the file system, databases, network, git or tar (R-ARCH-1); go through a service"
  },
  // R-ARCH-3: adapters never import the transaction engine, git, proposals or stores.
  // Relative imports between layer folders ("../../sqlite/x.js") don't spell "layers/", hence the bare folder globs.
  {
    zones: ["adapters"],
    modules: ["isomorphic-git"],
    patterns: [
      "**/services/Transaction*", "**/services/StateStore*", "**/services/IndexStore*",
      "**/services/LogStore*", "**/services/Proposal*",
      "**/layers/sqlite/**", "**/layers/git/**", "**/sqlite/**", "**/git/**",
      "isomorphic-git/*", "**/programs/**"
    ],
    message: "adapters may not import the transaction engine, git, proposals, stores or programs (R-ARCH-3); return data and let the caller persist it"
  },
  // Spec 11 §7 (domain → services → layers/programs → cli): the domain is pure data and functions.
  {
    zones: ["domain"],
    patterns: ["@effect/platform*", "**/services/**", "**/layers/**", "**/programs/**"],
    message: "src/domain/ is pure (spec 00 §3.1): no platform, services, layers or programs; pass what you need in as arguments"
  },
  // Spec 00 §3.2: programs (and the service contracts they use) depend on services, never on layers.
  {
    zones: ["services", "programs"],
    patterns: ["**/layers/**"],
    message: "services and programs depend on services, never on layers (spec 00 §3.2); layers are provided by the CLI or the embedding program"
  },
  // Spec 00 §3.1: the CLI is the top of the graph (parse → program → render); nothing imports it.
  // The negation keeps the @effect/cli package's subpaths out of this rule: it is about src/cli/.
  {
    zones: allZonesBut("cli"),
    patterns: ["**/cli/**", "!@effect/cli/**"],
    message: "only src/cli/ may import src/cli/ (spec 00 §3.1); move shared code down into programs or domain"
  }
]

const architecture = Object.entries(zones).map(([zone, scope]) => {
  const applying = rules.filter((rule) => rule.zones.includes(zone))
  return {
    name: `akm/architecture/${zone}`,
    ...scope,
    rules: {
      "no-restricted-imports": ["error", {
        paths: applying.flatMap((rule) => (rule.modules ?? []).map((name) => ({ name, message: rule.message }))),
        patterns: applying
          .filter((rule) => rule.patterns !== undefined)
          .map((rule) => ({ group: rule.patterns, message: rule.message }))
      }]
    }
  }
})

/** Node's globals for the plain .js/.mjs scripts (TypeScript files get them from @types/node). */
const nodeGlobals = Object.fromEntries(
  [
    "process", "console", "Buffer", "URL", "URLSearchParams", "TextEncoder", "TextDecoder",
    "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate",
    "queueMicrotask", "structuredClone", "performance", "fetch", "AbortController", "AbortSignal"
  ].map((name) => [name, "readonly"])
)

export default defineConfig(
  globalIgnores(["dist/", "node_modules/", "coverage/", ".stryker-tmp/", "test/fixtures/**"]),
  {
    name: "akm/base",
    files: [
      "src/**/*.ts",
      "test/**/*.ts",
      "bench/**/*.{ts,js,mjs}",
      "scripts/**/*.{ts,js,mjs}",
      "examples/**/*.{ts,js,mjs}",
      "bin/**/*.js",
      "*.{ts,js,mjs}"
    ],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: nodeGlobals },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        caughtErrorsIgnorePattern: "^_",
        destructuredArrayIgnorePattern: "^_",
        // `const { [key]: _omitted, ...rest } = record` is how a key is dropped immutably.
        ignoreRestSiblings: true
      }],
      // `Effect.gen(function* () { return ... })` is idiomatic Effect even without a yield.
      "require-yield": "off"
    }
  },
  {
    // The launcher is CommonJS (bin/package.json) because Node loads that faster.
    name: "akm/bin-commonjs",
    files: ["bin/**/*.js"],
    languageOptions: { sourceType: "commonjs", globals: { ...nodeGlobals, require: "readonly", module: "writable", __dirname: "readonly", __filename: "readonly" } },
    rules: { "@typescript-eslint/no-require-imports": "off" }
  },
  architecture
)
