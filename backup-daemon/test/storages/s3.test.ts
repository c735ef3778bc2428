import { expect } from 'chai'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { HeadObjectCommand } from '@aws-sdk/client-s3'
import { S3Storage, type S3StorageOptions } from '../../src/storages/s3/S3Storage.js'
import { s3Storage } from '../../src/storages/s3/index.js'
import type { Storage } from '../../src/storages/types.js'
import { runStorageSuite } from '../support/runStorageSuite.js'
import { startS3rver, type RunningS3 } from './support/s3rver.js'

const never = () => new AbortController().signal
const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }

describe('storages/s3 (against s3rver over HTTP)', () => {
  let s3: RunningS3
  before(async () => {
    s3 = await startS3rver()
  })
  after(() => s3.close())

  const raw = (extra: Partial<S3StorageOptions> = {}) =>
    new S3Storage({
      name: 's3',
      bucket: s3.bucket,
      region: 'us-east-1',
      endpoint: s3.endpoint,
      path: '',
      usePathStyle: true,
      downloadMode: 'proxy',
      signedUrlTTL: 900,
      ...credentials,
      ...extra,
    })

  describe('storage suite', () => {
    let run = 0
    runStorageSuite({
      // Each test gets its own `path` prefix (an empty "folder" of the bucket), through the factory.
      newStorage: async () =>
        s3Storage.create(
          s3Storage.configSchema.parse({
            type: 's3',
            name: 's3',
            bucket: s3.bucket,
            endpoint: s3.endpoint,
            path: `suite-${++run}`,
            usePathStyle: true,
            ...credentials,
          }),
        ),
    })
  })

  it('uploads a body of unknown length as multipart and commits it by server-side copy', async () => {
    const storage = raw({ partSize: 5 * 1024 * 1024, path: 'multi' })
    async function* body() {
      for (let i = 0; i < 12; i++) yield Buffer.alloc(1 << 20, i)
    }
    const pending = await storage.write('job', Readable.from(body()), never())
    expect(pending.size).to.equal(12 << 20)
    await pending.commit('job/big.tar')
    const listed = await storage.list('job/')
    expect(listed.map((o) => [o.key, o.size, o.incomplete])).to.deep.equal([['job/big.tar', 12 << 20, false]])
    const back = await buffer(await storage.open('job/big.tar'))
    expect(back.length).to.equal(12 << 20)
    expect(back[0]).to.equal(0)
    expect(back[(12 << 20) - 1]).to.equal(11)
  })

  it('keeps objects under `path` and applies storageClass', async () => {
    const storage = raw({ path: '/nested/prefix/', storageClass: 'STANDARD_IA' })
    await (await storage.write('job', Readable.from([Buffer.from('x')]), never())).commit('job/a')
    const head = await storage.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'nested/prefix/job/a' }))
    expect(head.ContentLength).to.equal(1)
    expect(head.StorageClass).to.equal('STANDARD_IA')
    expect((await storage.list('job/')).map((o) => o.key)).to.deep.equal(['job/a'])
  })

  it('signs a download URL valid for signedUrlTTL in signed mode, streams in proxy mode', async () => {
    const signed = raw({ path: 'signed', downloadMode: 'signed', signedUrlTTL: 120 })
    await (await signed.write('job', Readable.from([Buffer.from('presigned bytes')]), never())).commit('job/snap.tar.gz')
    const url = await signed.downloadUrl('job/snap.tar.gz')
    expect(new URL(url!).searchParams.get('X-Amz-Expires')).to.equal('120')
    const response = await fetch(url!)
    expect(response.status).to.equal(200)
    expect(await response.text()).to.equal('presigned bytes')
    expect(await raw({ path: 'signed' }).downloadUrl('job/snap.tar.gz')).to.equal(undefined)
  })

  it('validates signedUrlTTL (60..86400) and paired credentials in the config', () => {
    const base = { type: 's3', name: 's', bucket: 'b' }
    expect(s3Storage.configSchema.safeParse({ ...base, signedUrlTTL: 59 }).success).to.equal(false)
    expect(s3Storage.configSchema.safeParse({ ...base, signedUrlTTL: 86_401 }).success).to.equal(false)
    expect(s3Storage.configSchema.safeParse({ ...base, signedUrlTTL: 86_400 }).success).to.equal(true)
    expect(s3Storage.configSchema.safeParse({ ...base, accessKeyId: 'a' }).success).to.equal(false)
    expect(s3Storage.configSchema.safeParse({ ...base, downloadMode: 'redirect' }).success).to.equal(false)
  })

  it('classifies its errors: 5xx, 429, 408 and dropped connections are retryable, other statuses not', () => {
    const storage: Storage = s3Storage.create(s3Storage.configSchema.parse({ type: 's3', name: 's', bucket: 'b' }))
    const status = (code: number) => Object.assign(new Error('x'), { $metadata: { httpStatusCode: code } })
    expect([500, 503, 429, 408, 403, 404, 400].map((code) => storage.isRetryable(status(code)))).to.deep.equal([true, true, true, true, false, false, false])
    expect(storage.isRetryable(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).to.equal(true)
    expect(storage.isRetryable(Object.assign(new Error('x'), { name: 'NoSuchKey' }))).to.equal(false)
  })

  it('says isNotExist for a missing object through the retrying wrapper', async () => {
    const storage: Storage = s3Storage.create(
      s3Storage.configSchema.parse({ type: 's3', name: 's', bucket: s3.bucket, endpoint: s3.endpoint, usePathStyle: true, ...credentials }),
    )
    const err = await storage.open('nothing/here').catch((e: unknown) => e)
    expect(storage.isNotExist(err)).to.equal(true)
  })
})
