/**
 * Loads the dev-app's CMS config, then does what the first client upload does with the AWS SDK (an S3 client
 * and a presigned PUT; no request is sent). Run as a child by seedOutput.test.ts, which reads what it printed.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'

import '../../../src/payload.config.js'

const client = new S3Client({
  credentials: { accessKeyId: 'zone', secretAccessKey: 'key' },
  endpoint: 'http://127.0.0.1:9/s3',
  forcePathStyle: true,
  region: 'de',
})
const url = await getSignedUrl(client, new PutObjectCommand({ Bucket: 'zone', Key: 'a.png' }), { expiresIn: 60 })
console.log(url.startsWith('http://127.0.0.1:9/s3/zone/a.png') ? 's3-client: presigned' : `s3-client: unexpected ${url}`)
process.exit(0)
