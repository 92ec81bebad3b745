import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { ManagedRuntime } from "effect"
import { makeAkmLive } from "../../src/layers/AkmLive.js"
import { bundleAdd } from "../../src/programs/bundle/add.js"
import { indexBundles } from "../../src/programs/indexBundles.js"

/**
 * A temp workspace whose one bundle, "library" (akm adapter), is a folder the
 * test fills with `write` before `mount` adds and indexes it — the setup of the
 * ranking suites that search a real index of look-alike items.
 */
export const libraryWorkspace = (prefix: string) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  const library = path.join(home, "library")
  const runtime = ManagedRuntime.make(makeAkmLive({ configDir: path.join(home, "c"), dataDir: path.join(home, "d"), cacheDir: path.join(home, "k"), quiet: true }))
  return {
    home,
    library,
    runtime,
    write: (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(library, file)), { recursive: true })
      fs.writeFileSync(path.join(library, file), text)
    },
    mount: async () => {
      await runtime.runPromise(bundleAdd({ source: library, name: "library", adapter: "akm", cwd: home, home }))
      await runtime.runPromise(indexBundles({}))
    },
    dispose: async () => {
      await runtime.dispose()
      fs.rmSync(home, { recursive: true, force: true })
    }
  }
}
