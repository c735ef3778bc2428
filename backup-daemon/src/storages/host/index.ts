/**
 * @module storages/host/hostStorage
 * The `host` storage type's config schema and factory (wrapped in retries with timeouts).
 */
import { z } from 'zod'
import { withRetries } from '../remote/withRetries.js'
import type { StorageFactory } from '../types.js'
import { HostStorage } from './HostStorage.js'

export const hostConfigSchema = z
  .strictObject({
    type: z.literal('host'),
    name: z.string().min(1),
    /** Storage API base URL, e.g. a regional `https://de.storage.bunnycdn.com`. */
    // The original documents a bare host name (`storage.bunnycdn.com`): https is meant.
    endpoint: z.preprocess(
      (value) => (typeof value === 'string' && value && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? `https://${value}` : value),
      z.url({ protocol: /^https?$/ }).default('https://storage.bunnycdn.com'),
    ),
    zoneName: z.string().min(1),
    /** The storage zone password (`AccessKey` header). */
    accessKey: z.string().min(1),
    /** Folder inside the zone for this storage's snapshots (the original's `path`). */
    path: z.string().default(''),
    /**
     * A pull zone serves this zone to anyone (e.g. the CMS's media zone): snapshots there are public
     * unless the pull zone refuses `path`. Only read by the config check (config/publicZoneWarnings.ts).
     */
    zoneIsPublic: z.boolean().default(false),
    /** The public pull zone refuses everything under `path` (an Edge Rule "block request" on it). */
    pullZoneBlocksPath: z.boolean().default(false),
    /** Pull zone base URL or host name; downloads redirect there when set. */
    pullZoneHostname: z.string().min(1).optional(),
    /** Pull zone URL token authentication key; signed URLs when set. */
    pullZoneTokenAuthKey: z.string().min(1).optional(),
    /** Lifetime of a signed pull-zone URL in seconds. */
    pullZoneTokenTTL: z.int().min(1).max(31_536_000).default(3600),
  })
  .refine((c) => !c.pullZoneTokenAuthKey || c.pullZoneHostname, { message: 'pullZoneTokenAuthKey needs pullZoneHostname', path: ['pullZoneTokenAuthKey'] })

/** One `type: host` entry after parsing (defaults applied). */
export type HostStorageConfig = z.output<typeof hostConfigSchema>

export const hostStorage = {
  type: 'host',
  configSchema: hostConfigSchema,
  secretKeys: ['accessKey', 'pullZoneTokenAuthKey'],
  create: (config) =>
    withRetries(
      new HostStorage({
        name: config.name,
        endpoint: config.endpoint,
        zoneName: config.zoneName,
        accessKey: config.accessKey,
        pullZoneHostname: config.pullZoneHostname,
        pullZoneTokenAuthKey: config.pullZoneTokenAuthKey,
        pullZoneTokenTTL: config.pullZoneTokenTTL,
        path: config.path,
      }),
    ),
} satisfies StorageFactory<HostStorageConfig>
