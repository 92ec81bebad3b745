import { Layer } from "effect"
import { SandboxIndex } from "../../services/SandboxIndex.js"
import { makeIndexStoreMiniSearch } from "./IndexStoreMiniSearch.js"

/** Improve's sandbox indexes on MiniSearch: the same tokenizer, stemmer and field boosts as index.db (spec 06 §6). */
export const SandboxIndexMiniSearch = Layer.succeed(SandboxIndex, SandboxIndex.of({ make: makeIndexStoreMiniSearch }))
