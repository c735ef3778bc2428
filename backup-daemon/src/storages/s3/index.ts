/**
 * @module storages/s3/s3Storage
 * The `s3` storage type's config schema and factory (list/open/delete/commit wrapped in retries; the
 * SDK is loaded on first use).
 */
import { z } from 'zod'
import { lazyStorage } from '../remote/lazyStorage.js'
import { withRetries } from '../remote/withRetries.js'
import type { StorageFactory } from '../types.js'
import { isS3NotExist } from './isS3NotExist.js'
import { isS3Retryable } from './isS3Retryable.js'
import type { S3StorageOptions } from './S3Storage.js'

export const s3ConfigSchema = z
  .strictObject({
    type: z.literal('s3'),
    name: z.string().min(1),
    bucket: z.string().min(1),
    region: z.string().min(1).default('us-east-1'),
    /** An S3-compatible service; AWS when unset. */
    endpoint: z.url({ protocol: /^https?$/ }).optional(),
    /** Key prefix inside the bucket (a folder). */
    path: z.string().default(''),
    /** Credentials; the SDK's default chain (env, profile, instance role) when unset. */
    accessKeyId: z.string().min(1).optional(),
    secretAccessKey: z.string().min(1).optional(),
    /** `endpoint/bucket/key` URLs, needed by most S3-compatible services. */
    usePathStyle: z.boolean().default(false),
    /** e.g. `STANDARD_IA`; the bucket's default when unset. */
    storageClass: z.string().min(1).optional(),
    /** `proxy`: the daemon streams downloads; `signed`: 307 to a presigned URL. */
    downloadMode: z.enum(['proxy', 'signed']).default('proxy'),
    /** Lifetime of a presigned download URL in seconds. */
    signedUrlTTL: z.int().min(60).max(86_400).default(900),
    /**
     * Seconds a request may go without a byte either way before it fails, naming the storage (`no
     * answer from URL for N s`); the SDK makes 3 attempts of each request.
     */
    timeout: z.number().positive().max(3600).default(60),
  })
  .refine((c) => !c.accessKeyId === !c.secretAccessKey, { message: 'set both accessKeyId and secretAccessKey, or neither', path: ['secretAccessKey'] })

/** One `type: s3` entry after parsing (defaults applied). */
export type S3StorageConfig = z.output<typeof s3ConfigSchema>

export const s3Storage = {
  type: 's3',
  configSchema: s3ConfigSchema,
  secretKeys: ['accessKeyId', 'secretAccessKey'],
  create: (config) => {
    const options: S3StorageOptions = {
      name: config.name,
      bucket: config.bucket,
      region: config.region,
      endpoint: config.endpoint,
      path: config.path,
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      usePathStyle: config.usePathStyle,
      storageClass: config.storageClass,
      downloadMode: config.downloadMode,
      signedUrlTTL: config.signedUrlTTL,
      timeoutMs: config.timeout * 1000,
    }
    const info = {
      type: 's3',
      name: config.name,
      canStream: true,
      downloadUrl: options.downloadMode === 'signed',
      isNotExist: isS3NotExist,
      isRetryable: isS3Retryable,
    }
    return withRetries(lazyStorage(info, async () => new (await import('./S3Storage.js')).S3Storage(options)))
  },
} satisfies StorageFactory<S3StorageConfig>
