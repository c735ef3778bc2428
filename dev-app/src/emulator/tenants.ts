/**
 * @module emulator/tenants
 * Several storage zones and video libraries on one host, as an account holds them. Each extra zone or library
 * is a context of its own made from the emulator's (`Object.create`): it overrides what is the zone's or the
 * library's (names, keys, folder, checksums, videos, collections) and reads everything else, settings changed
 * at run time included, from the emulator's. So every upstream handler serves any zone or library unchanged:
 * the server only picks the context a request's path (or TUS header) names.
 */
import path from 'node:path'
import type { EmulatorContext } from './context.js'
import { safeDecode } from './http/safeDecode.js'
import { CollectionStore } from './stream/CollectionStore.js'
import { VideoStore, type VideoRecord } from './stream/VideoStore.js'

/** A context like `base` with `overrides` of its own and an options object that inherits the rest. */
function derive(base: EmulatorContext, options: Record<string, unknown>, overrides: Partial<EmulatorContext>): EmulatorContext {
  return Object.assign(Object.create(base) as EmulatorContext, { options: Object.assign(Object.create(base.options), options), ...overrides })
}

/** Gives `base` its `zone`, `library` and `libraries` lookups over its own zone and library and the extra ones. */
export function addTenants(base: EmulatorContext): void {
  const zones = new Map<string, EmulatorContext>([[base.options.zoneName, base]])
  for (const { zoneName, accessKey } of base.options.extraZones) {
    const dirs = { ...base.dirs, zone: path.join(base.dirs.root, 'storage', zoneName) }
    zones.set(zoneName, derive(base, { accessKey, zoneName }, { checksums: new Map(), dirs }))
  }
  const libraries = new Map<string, EmulatorContext>([[String(base.options.libraryId), base]])
  for (const { libraryId, apiKey, readOnlyKey } of base.options.extraLibraries) {
    const own = { collections: new CollectionStore(), videos: new VideoStore(libraryId) }
    libraries.set(String(libraryId), derive(base, { apiKey, libraryId, readOnlyKey }, own))
  }
  base.zone = (name) => zones.get(name)
  base.library = (id) => libraries.get(String(id))
  base.libraries = () => [...libraries.values()]
}

/** The library that holds the video `guid`, and the video. */
export function findVideo(ctx: EmulatorContext, guid: string): { library: EmulatorContext; video: VideoRecord } | undefined {
  for (const library of ctx.libraries()) {
    const video = library.videos.get(guid)
    if (video) return { library, video }
  }
  return undefined
}

/** The zone or library a request path names, for the handlers that serve one of them: the context to give them. */
export function tenantOf(ctx: EmulatorContext, rawPath: string, libraryHeader: string | undefined): EmulatorContext {
  const zone = /^\/(?:storage|s3|cdn)\/([^/]+)/.exec(rawPath)?.[1]
  if (zone !== undefined) return ctx.zone(safeDecode(zone) ?? zone) ?? ctx
  const library = /^\/(?:stream\/library|stream-cdn)\/([^/]+)/.exec(rawPath)?.[1]
  if (library !== undefined) return ctx.library(library) ?? ctx
  if (rawPath.startsWith('/tusupload') && libraryHeader) return ctx.library(libraryHeader) ?? ctx
  return ctx
}
