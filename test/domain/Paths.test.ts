import { posix } from "node:path"
import { describe, expect, it } from "vitest"
import { expandUserPath, workspacePaths } from "../../src/domain/Paths.js"

const home = "/home/ada"
const join = posix.join

describe("workspacePaths (spec 01 §1)", () => {
  it("defaults to the home directory's XDG locations", () => {
    const paths = workspacePaths({}, home, join)
    expect(paths).toMatchObject({
      configDir: "/home/ada/.config/akm",
      dataDir: "/home/ada/.local/share/akm",
      cacheDir: "/home/ada/.cache/akm"
    })
  })

  it("XDG_* variables beat the home defaults", () => {
    const paths = workspacePaths({ XDG_CONFIG_HOME: "/xdg/config", XDG_DATA_HOME: "/xdg/data", XDG_CACHE_HOME: "/xdg/cache" }, home, join)
    expect(paths).toMatchObject({ configDir: "/xdg/config/akm", dataDir: "/xdg/data/akm", cacheDir: "/xdg/cache/akm" })
  })

  it("AKM_* variables beat XDG_* and are used as given, without an akm suffix", () => {
    const env = {
      XDG_CONFIG_HOME: "/xdg/config",
      XDG_DATA_HOME: "/xdg/data",
      XDG_CACHE_HOME: "/xdg/cache",
      AKM_CONFIG_DIR: "/akm/config",
      AKM_DATA_DIR: "/akm/data",
      AKM_CACHE_DIR: "/akm/cache"
    }
    expect(workspacePaths(env, home, join)).toMatchObject({ configDir: "/akm/config", dataDir: "/akm/data", cacheDir: "/akm/cache" })
  })

  it("overrides (command-line flags) beat every variable", () => {
    const env = { AKM_CONFIG_DIR: "/akm/config", AKM_DATA_DIR: "/akm/data", XDG_CACHE_HOME: "/xdg/cache" }
    const paths = workspacePaths(env, home, join, { configDir: "/flag/config", dataDir: "/flag/data", cacheDir: "/flag/cache" })
    expect(paths).toMatchObject({ configDir: "/flag/config", dataDir: "/flag/data", cacheDir: "/flag/cache" })
  })

  it("each location is resolved on its own", () => {
    const paths = workspacePaths({ AKM_DATA_DIR: "/akm/data", XDG_CACHE_HOME: "/xdg/cache" }, home, join, { configDir: "/flag/config" })
    expect(paths).toMatchObject({ configDir: "/flag/config", dataDir: "/akm/data", cacheDir: "/xdg/cache/akm" })
  })

  it("an empty variable counts as unset", () => {
    const paths = workspacePaths({ AKM_CONFIG_DIR: "", XDG_CONFIG_HOME: "", AKM_DATA_DIR: "", XDG_DATA_HOME: "/xdg/data" }, home, join)
    expect(paths).toMatchObject({ configDir: "/home/ada/.config/akm", dataDir: "/xdg/data/akm" })
  })

  it("places every file in its directory: config in $CONFIG, durable state in $DATA, the disposable index in $CACHE", () => {
    const paths = workspacePaths({}, home, join, { configDir: "/c", dataDir: "/d", cacheDir: "/k" })
    expect(paths).toEqual({
      configDir: "/c",
      dataDir: "/d",
      cacheDir: "/k",
      configFile: "/c/config.yaml",
      lockFile: "/d/akm.lock",
      stateDb: "/d/state.db",
      logsDb: "/d/logs.db",
      indexDb: "/k/index.db",
      archiveDir: "/d/archive",
      txnDir: "/d/txn",
      locksDir: "/d/locks",
      packetsDir: "/d/packets",
      bundlesDir: "/d/bundles",
      sourcesDir: "/k/sources",
      sandboxDir: "/k/sandbox"
    })
  })
})

describe("expandUserPath", () => {
  it("expands ~ and ~/ to the home directory", () => {
    expect(expandUserPath("~", "/base", home)).toBe(home)
    expect(expandUserPath("~/notes", "/base", home)).toBe("/home/ada/notes")
  })

  it("resolves relative paths against the base and keeps absolute ones", () => {
    expect(expandUserPath("../kb", "/work/config", home)).toBe("/work/kb")
    expect(expandUserPath("/srv/kb/", "/work/config", home)).toBe("/srv/kb")
  })

  it("does not treat ~user or a ~ inside a name as home", () => {
    expect(expandUserPath("~bob/x", "/base", home)).toBe("/base/~bob/x")
    expect(expandUserPath("notes~", "/base", home)).toBe("/base/notes~")
  })
})
