/**
 * @module sources/s3/schema
 * The config entry of the `s3` source (a bucket, or a prefix of it, as a source; the original
 * service's keys) and its type.
 */
import { z } from 'zod'
import { remoteExtraParams } from '../support/remoteExtraParams.js'
import { sourceName } from '../support/sourceName.js'

export const s3SourceSchema = z
  .strictObject({
    type: z.literal('s3'),
    name: sourceName,
    bucket: z.string().min(1),
    region: z.string().min(1).default('us-east-1'),
    /** An S3-compatible service (MinIO, R2...); implies path-style URLs, as in the original. */
    endpoint: z.url({ protocol: /^https?$/ }).optional(),
    usePathStyle: z.boolean().default(false),
    accessKeyId: z.string().min(1).optional(),
    secretAccessKey: z.string().min(1).optional(),
    /** Key prefix to back up (a folder); the whole bucket when empty. */
    path: z.string().default(''),
    /** Rules of the original service, on keys relative to `path` (see `support/excludeMatcher`). */
    excludes: z.array(z.string()).default([]),
    /** A folder kept between runs: only new or changed objects are fetched (by size and modification time). */
    syncPath: z.string().min(1).optional(),
    extraParams: remoteExtraParams,
  })
  .refine((c) => !c.accessKeyId === !c.secretAccessKey, { message: 'set both accessKeyId and secretAccessKey, or neither', path: ['secretAccessKey'] })

export type S3SourceConfig = z.output<typeof s3SourceSchema>
