/**
 * @module sources/host/schema
 * The config entry of the `host` source (a storage zone of the storage host as a source; the
 * original service's `bunny` source, whose name the loader maps to `host`) and its type.
 */
import { z } from 'zod'
import { remoteExtraParams } from '../support/remoteExtraParams.js'
import { sourceName } from '../support/sourceName.js'

export const hostSourceSchema = z.strictObject({
  type: z.literal('host'),
  name: sourceName,
  /** Storage API base URL (the zone's region); a bare host name (the original's docs write `storage.bunnycdn.com`) means https. */
  endpoint: z
    .string()
    .min(1)
    .transform((value) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`))
    .pipe(z.url({ protocol: /^https?$/ }))
    .default('https://storage.bunnycdn.com'),
  zoneName: z.string().min(1),
  /** The zone password (`AccessKey` header). */
  accessKey: z.string().min(1),
  /** Folder of the zone to back up; the whole zone when empty. */
  path: z.string().default(''),
  /** Rules of the original service, on paths relative to `path` (see `support/excludeMatcher`). */
  excludes: z.array(z.string()).default([]),
  /** A folder kept between runs: only new or changed files are fetched (by size and modification time). */
  syncPath: z.string().min(1).optional(),
  extraParams: remoteExtraParams,
  /** Downloads go through the pull zone (token-signed URLs) when this and the key are set, as in the original. */
  pullZoneHostname: z.string().min(1).optional(),
  pullZoneTokenAuthKey: z.string().min(1).optional(),
  /** Lifetime of a signed download URL in seconds. */
  pullZoneTokenTTL: z.int().min(60).max(86_400).default(3600),
})

export type HostSourceConfig = z.output<typeof hostSourceSchema>
