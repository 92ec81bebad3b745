import { IndexStoreMiniSearch } from "../../src/layers/memory/IndexStoreMiniSearch.js"
import { indexStoreContract } from "../services/IndexStore.contract.js"

indexStoreContract("minisearch", IndexStoreMiniSearch)
