import { IndexStoreMemory } from "../../src/layers/memory/IndexStoreMemory.js"
import { indexStoreContract } from "../services/IndexStore.contract.js"

indexStoreContract("memory", IndexStoreMemory)
