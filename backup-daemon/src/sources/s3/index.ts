/**
 * @module sources/s3
 * The `s3` source factory: a bucket (or a prefix of it) as a source, with an optional local copy
 * (`syncPath`) kept between runs.
 */
import type { SourceFactory } from '../types.js'
import { S3Source } from './S3Source.js'
import { s3SourceSchema, type S3SourceConfig } from './schema.js'

export const s3Source: SourceFactory<S3SourceConfig> = {
  type: 's3',
  configSchema: s3SourceSchema,
  secretKeys: ['accessKeyId', 'secretAccessKey'],
  pathKeys: ['syncPath'],
  create: (config, context) => new S3Source(config, context),
}
