import { FileSystem } from "@effect/platform/FileSystem"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as path from "node:path"
import { STATIONS, type Station } from "../../domain/scope/Plan.js"
import { StateStore } from "../../services/StateStore.js"
import { recordEvent } from "../events.js"
import type { ProjectTarget } from "../ledger/projectBundle.js"

/**
 * Each station's last run (R-SCP-2: a station has work only when one of its
 * inputs changed since its last run). Kept in state.db's event log, not in
 * the repository: a pass must not dirty the working tree it scopes, and the
 * log already carries a bundle rename (subjects `<bundle>//…`).
 */

export const STATION_RUN_EVENT = "station.run"

export interface StationRun {
  readonly station: Station
  /** Epoch milliseconds. */
  readonly at: number
  /** The commit HEAD named then: commits after it are new (committer times have whole seconds only). */
  readonly head?: string
  /** The changed inputs it saw, path → content hash ("-" for a deleted file): the same bytes again are no new work. */
  readonly inputs: Readonly<Record<string, string>>
}

const subjectOf = (bundle: string) => `${bundle}//stations`

const isRun = (data: unknown): data is StationRun => {
  const d = data as Partial<StationRun> | null
  return d !== null && typeof d === "object" && typeof d.station === "string" && (STATIONS as ReadonlyArray<string>).includes(d.station) && typeof d.at === "number" && typeof d.inputs === "object" && d.inputs !== null
}

/** The latest run of each station of a bundle (none before its first pass). */
export const lastStationRuns = (bundle: string) =>
  Effect.gen(function* () {
    const store = yield* StateStore
    const latest = new Map<Station, StationRun>()
    let after = 0
    for (;;) {
      const page = yield* store.events({ after, limit: 500, subject: subjectOf(bundle) })
      for (const event of page) if (event.kind === STATION_RUN_EVENT && isRun(event.data)) latest.set(event.data.station, event.data)
      if (page.length < 500) break
      after = page[page.length - 1]!.id
    }
    return latest as ReadonlyMap<Station, StationRun>
  })

/** Records that a station ran over these changed inputs. */
export const recordStationRun = (bundle: string, run: StationRun) => recordEvent(STATION_RUN_EVENT, subjectOf(bundle), { ...run })

/** Content hashes of project-relative files ("-" when one is gone): what a run saw. */
export const contentHashes = (target: ProjectTarget, paths: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const out: Record<string, string> = {}
    for (const p of paths) {
      const bytes = yield* Effect.option(fs.readFile(path.join(target.root, p)))
      out[p] = bytes._tag === "None" ? "-" : createHash("sha256").update(bytes.value).digest("hex")
    }
    return out as Readonly<Record<string, string>>
  })
