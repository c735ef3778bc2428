/**
 * @module storages/s3/s3Storage
 * The `s3` storage type's config schema and factory (list/open/delete/commit wrapped in retries; the
 * SDK is loaded on first use).
 */
import { z } from 'zod'
import type { S3StorageConfig } from '../../config/types.js'
import { withRetries } from '../remote/withRetries.js'
import type { StorageFactory } from '../types.js'
import { lazyStorage } from '../remote/lazyStorage.js'
import { isS3NotExist } from './isS3NotExist.js'
import type { S3StorageOptions } from './S3Storage.js'

export const s3Storage: StorageFactory<S3StorageConfig> = {
  type: 's3',
  configSchema: z
    .strictObject({
      type: z.literal('s3'),
      name: z.string().min(1),
      bucket: z.string().min(1),
      region: z.string().min(1).optional(),
      endpoint: z.url({ protocol: /^https?$/ }).optional(),
      path: z.string().optional(),
      accessKeyId: z.string().min(1).optional(),
      secretAccessKey: z.string().min(1).optional(),
      usePathStyle: z.boolean().optional(),
      storageClass: z.string().min(1).optional(),
      downloadMode: z.enum(['proxy', 'signed']).optional(),
      signedUrlTTL: z.int().min(60).max(86_400).optional(),
    })
    .refine((c) => !c.accessKeyId === !c.secretAccessKey, { message: 'set both accessKeyId and secretAccessKey, or neither', path: ['secretAccessKey'] }),
  secretKeys: ['accessKeyId', 'secretAccessKey'],
  create: (config) => {
    const options: S3StorageOptions = {
      name: config.name,
      bucket: config.bucket,
      region: config.region ?? 'us-east-1',
      endpoint: config.endpoint,
      path: config.path ?? '',
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      usePathStyle: config.usePathStyle ?? false,
      storageClass: config.storageClass,
      downloadMode: config.downloadMode ?? 'proxy',
      signedUrlTTL: config.signedUrlTTL ?? 900,
    }
    const info = { type: 's3', name: config.name, canStream: true, downloadUrl: options.downloadMode === 'signed', isNotExist: isS3NotExist }
    return withRetries(lazyStorage(info, async () => new (await import('./S3Storage.js')).S3Storage(options)))
  },
}
