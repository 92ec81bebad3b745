import type { AkmConfig } from "../../domain/Config.js"
import { defaultFetchPolicy, makeSafeFetch, type SafeFetch, type SafeFetchPolicy } from "./SafeHttp.js"

/**
 * The two ways akm builds its HTTP client (spec 01 §6). Everything fetched on
 * behalf of a bundle — website pages, git over http(s), npm registries and
 * tarballs, registry search — uses `bundleHttp`: the address policy applies
 * and `website.allowHosts` is the one list of exempt hosts. Endpoints the
 * operator configures for akm's own use (generator, embeddings, storage) use
 * `trustedHttp`: same client, no address check.
 */

export type BundleHttpOptions = Partial<Omit<SafeFetchPolicy, "allowHosts" | "trusted">>

export const bundleUserAgent = "akm (+https://github.com/akm)"

/** The exempt hosts of config website.allowHosts (named for the website kind first; it covers every bundle fetch). */
export const allowHostsOf = (config: AkmConfig): ReadonlyArray<string> => config.website?.allowHosts ?? []

export const bundleHttp = (config: AkmConfig, options: BundleHttpOptions = {}): SafeFetch =>
  makeSafeFetch({ ...defaultFetchPolicy, userAgent: bundleUserAgent, ...options, allowHosts: allowHostsOf(config), trusted: false })

export const trustedHttp = (options: BundleHttpOptions = {}): SafeFetch =>
  makeSafeFetch({ ...defaultFetchPolicy, userAgent: bundleUserAgent, ...options, allowHosts: [], trusted: true })
