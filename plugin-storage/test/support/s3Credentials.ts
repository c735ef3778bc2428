/**
 * @module test/support/s3Credentials
 * The key pair s3rver checks signatures against (fixed by s3rver), apart from `s3Bucket.ts` so that
 * `startCms.ts`, which the Payload 4 admin build bundles, does not pull s3rver in.
 */
export const s3Credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }
