import { Context, type Effect } from "effect"
import type { Redacted } from "../domain/Redaction.js"
import type { StateStoreError } from "./StateStore.js"

export type { Redacted } from "../domain/Redaction.js"

/**
 * The one redactor (spec 08 §2.1, R-RED-1): every text akm writes to a db, a
 * log, a ledger record, a proposal or its output passes here first. Known
 * secret values are held only as keyed digests in state.db (the key in
 * `$AKM_DATA_DIR/redactor.key`), so redacting reads no bundle file.
 * Redacting never fails: when the stored digests cannot be read, the patterns
 * and the allow-list still apply.
 */
export class Redactor extends Context.Tag("akm/Redactor")<Redactor, {
  /** Known values → `[redacted:env]`, secret patterns → `[redacted:<kind>]`; a project's `sensitive.allow` strings are kept. */
  readonly redact: (text: string) => Effect.Effect<Redacted>
  /** `redact`, then capped at `max` characters (stored queries: 1 KiB). */
  readonly redactCapped: (text: string, max: number) => Effect.Effect<Redacted>
  /**
   * A synchronous redactor over the digests and config as they are now, for
   * code that runs outside an Effect (CLI error rendering). Take it once; it
   * does not see values stored after it was taken.
   */
  readonly snapshot: Effect.Effect<(text: string) => Redacted>
  /** `snapshot`, also keeping these literal strings (a project's `.ai/config.json` `sensitive.allow`). */
  readonly snapshotAllowing: (allow: ReadonlyArray<string>) => Effect.Effect<(text: string) => Redacted>
  /**
   * Replaces the digests collected from one source (a bundle name) with those
   * of `values` (values under 8 characters are dropped); returns how many
   * distinct values are stored for it. Creates the key file on first use.
   */
  readonly storeValues: (source: string, values: ReadonlyArray<string>) => Effect.Effect<number, StateStoreError>
  /** Forgets the digests of every source not in `keep` (bundles removed from the config). */
  readonly retainSources: (keep: ReadonlyArray<string>) => Effect.Effect<void, StateStoreError>
}>() {}
