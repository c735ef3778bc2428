/**
 * @module storages/host/hostStorage
 * The `host` storage type's config schema and factory (wrapped in retries with timeouts).
 */
import { z } from 'zod'
import type { HostStorageConfig } from '../../config/types.js'
import { withRetries } from '../remote/withRetries.js'
import type { StorageFactory } from '../types.js'
import { HostStorage } from './HostStorage.js'

export const hostStorage: StorageFactory<HostStorageConfig> = {
  type: 'host',
  configSchema: z
    .strictObject({
      type: z.literal('host'),
      name: z.string().min(1),
      endpoint: z.url({ protocol: /^https?$/ }).optional(),
      zoneName: z.string().min(1),
      accessKey: z.string().min(1),
      pullZoneHostname: z.string().min(1).optional(),
      pullZoneTokenAuthKey: z.string().min(1).optional(),
      pullZoneTokenTTL: z.int().min(1).max(31_536_000).optional(),
    })
    .refine((c) => !c.pullZoneTokenAuthKey || c.pullZoneHostname, { message: 'pullZoneTokenAuthKey needs pullZoneHostname', path: ['pullZoneTokenAuthKey'] }),
  secretKeys: ['accessKey', 'pullZoneTokenAuthKey'],
  create: (config) =>
    withRetries(
      new HostStorage({
        name: config.name,
        endpoint: config.endpoint ?? 'https://storage.bunnycdn.com',
        zoneName: config.zoneName,
        accessKey: config.accessKey,
        pullZoneHostname: config.pullZoneHostname,
        pullZoneTokenAuthKey: config.pullZoneTokenAuthKey,
        pullZoneTokenTTL: config.pullZoneTokenTTL,
      }),
    ),
}
