/**
 * @module sources/hostStream/schema
 * The config entry of the `host-stream` source (a video library of the streaming host as a source,
 * beside the `host` source of its storage zones) and its type.
 */
import { z } from 'zod'
import { remoteExtraParams } from '../support/remoteExtraParams.js'
import { sourceName } from '../support/sourceName.js'

/** A bare host name means https, as the `host` source's `endpoint`. */
const httpUrl = z
  .string()
  .min(1)
  .transform((value) => (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`))
  .pipe(z.url({ protocol: /^https?$/ }))
  .transform((value) => value.replace(/\/+$/, ''))

export const hostStreamSourceSchema = z.strictObject({
  type: z.literal('host-stream'),
  name: sourceName,
  /** Stream API base URL. */
  apiBase: httpUrl.default('https://video.bunnycdn.com'),
  libraryId: z.coerce.number().int().positive(),
  /** The library's API key (`AccessKey` header); `env:VAR` like every secret. */
  apiKey: z.string().min(1),
  /** The library's pull zone (`vz-….b-cdn.net`, or a URL with a path): originals, MP4 renditions and captions are downloaded from it. */
  pullZoneHostname: httpUrl,
  /** The pull zone's token authentication key, when the zone is token-protected: downloads are then signed (HS256 scheme). */
  pullZoneTokenAuthKey: z.string().min(1).optional(),
  /** Lifetime of a signed download URL in seconds. */
  pullZoneTokenTTL: z.int().min(60).max(86_400).default(3600),
  /** A folder kept between runs: only new or changed videos are downloaded (see `videoFingerprint`). */
  syncPath: z.string().min(1).optional(),
  /** Videos per listing request (the API's `itemsPerPage`, at most 1000). */
  pageSize: z.int().min(1).max(1000).default(100),
  /** `workers`: parallel downloads (default 10, at most 30). */
  extraParams: remoteExtraParams,
})

export type HostStreamSourceConfig = z.output<typeof hostStreamSourceSchema>
