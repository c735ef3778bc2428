import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { startEmulator } from '../../src/emulator/index.js'
import type { RunningEmulator } from '../../src/emulator/index.js'

describe('emulator: S3-compatible presigned PUT', () => {
  let emulator: RunningEmulator
  let client: S3Client

  before(async () => {
    emulator = await startEmulator({ storage: { zoneName: 's3-zone', accessKey: 's3-secret', region: 'de' } })
    // As the plugin will: access key id = zone name, secret = zone password, path-style bucket = zone.
    client = new S3Client({
      region: 'de',
      // Otherwise the presigner signs a CRC32 of an empty body into the URL, which S3 (and the emulator) refuse.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      endpoint: emulator.storage.s3Endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: emulator.storage.zoneName, secretAccessKey: emulator.storage.accessKey },
    })
  })
  after(async () => {
    client.destroy()
    await emulator.close()
  })

  const presignPut = (key: string, body: Buffer, options: { expiresIn?: number; signingDate?: Date; client?: S3Client } = {}) =>
    getSignedUrl(
      options.client ?? client,
      new PutObjectCommand({ Bucket: emulator.storage.zoneName, Key: key, ContentType: 'image/jpeg', ContentLength: body.length }),
      {
        expiresIn: options.expiresIn ?? 300,
        signingDate: options.signingDate,
        signableHeaders: new Set(['content-type', 'content-length']),
      },
    )

  /** Stores `key` through a presigned PUT (for the tests that need an object there, made by themselves). */
  const putObject = async (key: string, body: Buffer) => {
    const res = await fetch(await presignPut(key, body), { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body: new Uint8Array(body) })
    expect(res.status, await res.clone().text()).to.equal(200)
  }

  it('accepts a URL made by @aws-sdk/s3-request-presigner and stores the object for the storage API', async () => {
    const body = Buffer.from('fake jpeg bytes')
    const url = await presignPut('uploads/photo one.jpg', body)
    expect(url.startsWith(`${emulator.storage.s3Endpoint}/s3-zone/uploads/`)).to.equal(true)
    const res = await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg', Origin: 'http://cms.local' }, body })
    expect(res.status, await res.clone().text()).to.equal(200)
    expect(res.headers.get('etag')).to.match(/^"[0-9a-f]{32}"$/)
    expect(res.headers.get('access-control-allow-origin')).to.equal('http://cms.local')
    expect(await readFile(emulator.storedFilePath('uploads/photo one.jpg') ?? '')).to.deep.equal(body)
    const viaStorage = await fetch(`${emulator.storage.endpoint}/s3-zone/uploads/photo%20one.jpg`, { headers: { AccessKey: emulator.storage.accessKey } })
    expect(Buffer.from(await viaStorage.arrayBuffer())).to.deep.equal(body)
  })

  it('accepts a presigned GET', async () => {
    await putObject('uploads/get me.jpg', Buffer.from('fake jpeg bytes'))
    const url = await getSignedUrl(client, new GetObjectCommand({ Bucket: 's3-zone', Key: 'uploads/get me.jpg' }), { expiresIn: 60 })
    const res = await fetch(url)
    expect(res.status).to.equal(200)
    expect(await res.text()).to.equal('fake jpeg bytes')
  })

  it('accepts a presigned DELETE (204 also for a missing key)', async () => {
    await putObject('uploads/gone.jpg', Buffer.from('to delete'))
    // Another object, which the tampered URL below names: it must stay.
    await putObject('uploads/keep me.jpg', Buffer.from('to keep'))
    const url = await getSignedUrl(client, new DeleteObjectCommand({ Bucket: 's3-zone', Key: 'uploads/gone.jpg' }), { expiresIn: 60 })
    expect((await fetch(url, { method: 'DELETE' })).status).to.equal(204)
    expect(emulator.storedFilePath('uploads/gone.jpg')).to.equal(undefined)
    expect((await fetch(url, { method: 'DELETE' })).status).to.equal(204)
    expect((await fetch(url.replace('gone.jpg', 'keep%20me.jpg'), { method: 'DELETE' })).status, 'tampered').to.equal(403)
    expect(emulator.storedFilePath('uploads/keep me.jpg')).to.be.a('string')
  })

  it('answers the CORS preflight of a browser PUT', async () => {
    const res = await fetch(`${emulator.storage.s3Endpoint}/s3-zone/uploads/x.jpg?X-Amz-Signature=abc`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://cms.local', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type' },
    })
    expect(res.status).to.equal(204)
    expect(res.headers.get('access-control-allow-origin')).to.equal('http://cms.local')
    expect(res.headers.get('access-control-allow-methods')).to.include('PUT')
    expect(res.headers.get('access-control-allow-headers')).to.equal('content-type')
    expect(res.headers.get('access-control-expose-headers')).to.include('ETag')
  })

  it('refuses a URL whose key was changed', async () => {
    const body = Buffer.from('abc')
    const url = (await presignPut('uploads/allowed.jpg', body)).replace('allowed.jpg', 'other.jpg')
    const res = await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body })
    expect(res.status).to.equal(403)
    const xml = await res.text()
    expect(xml).to.include('<Code>SignatureDoesNotMatch</Code>')
    expect(xml).not.to.include('s3-secret')
    expect(emulator.storedFilePath('uploads/other.jpg')).to.equal(undefined)
  })

  it('refuses a body whose signed content type or length differs', async () => {
    const body = Buffer.from('abc')
    const url = await presignPut('uploads/typed.jpg', body)
    const wrongType = await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'text/html' }, body })
    expect(wrongType.status).to.equal(403)
    const wrongLength = await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body: Buffer.from('abcdef') })
    expect(wrongLength.status).to.equal(403)
    expect(emulator.storedFilePath('uploads/typed.jpg')).to.equal(undefined)
  })

  it('refuses an expired URL', async () => {
    const body = Buffer.from('abc')
    const url = await presignPut('uploads/late.jpg', body, { expiresIn: 60, signingDate: new Date(Date.now() - 120_000) })
    const res = await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body })
    expect(res.status).to.equal(403)
    expect(await res.text()).to.include('Request has expired')
  })

  it('refuses a URL signed with the wrong secret, key id or region', async () => {
    const body = Buffer.from('abc')
    const make = (accessKeyId: string, secretAccessKey: string, region = 'de') =>
      new S3Client({
        region,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        endpoint: emulator.storage.s3Endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId, secretAccessKey },
      })
    for (const [other, code] of [
      [make('s3-zone', 'guessed'), 'SignatureDoesNotMatch'],
      [make('another-zone', 's3-secret'), 'InvalidAccessKeyId'],
      [make('s3-zone', 's3-secret', 'ny'), 'AuthorizationQueryParametersError'],
    ] as const) {
      const url = await presignPut('uploads/forged.jpg', body, { client: other })
      const res = await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body })
      expect(res.status).to.be.oneOf([400, 403])
      expect(await res.text()).to.include(`<Code>${code}</Code>`)
      other.destroy()
    }
    expect(emulator.storedFilePath('uploads/forged.jpg')).to.equal(undefined)
  })

  it('ignores a presigned query checksum like AWS S3 (the SDK default: CRC32 of an empty body), refuses it when strict', async () => {
    const defaultsFor = (target: RunningEmulator) =>
      new S3Client({
        region: 'de',
        endpoint: target.storage.s3Endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: target.storage.zoneName, secretAccessKey: target.storage.accessKey },
      })
    const body = Buffer.from('abc')
    const lenientClient = defaultsFor(emulator)
    const url = await presignPut('uploads/crc.jpg', body, { client: lenientClient })
    expect(url).to.include('x-amz-checksum-crc32=AAAAAA')
    const accepted = await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body })
    expect(accepted.status).to.equal(200)
    expect(emulator.storedFilePath('uploads/crc.jpg')).to.be.a('string')
    lenientClient.destroy()

    const strict = await startEmulator({ storage: { zoneName: 's3-zone', accessKey: 's3-secret', strictQueryChecksums: true } })
    const strictClient = defaultsFor(strict)
    try {
      const strictUrl = await presignPut('uploads/crc.jpg', body, { client: strictClient })
      const refused = await fetch(strictUrl, { method: 'PUT', headers: { 'Content-Type': 'image/jpeg' }, body })
      expect(refused.status).to.equal(400)
      expect(await refused.text()).to.include('<Code>BadDigest</Code>')
      expect(strict.storedFilePath('uploads/crc.jpg')).to.equal(undefined)
    } finally {
      strictClient.destroy()
      await strict.close()
    }
  })

  it('refuses a body that contradicts a signed Content-MD5', async () => {
    const signed = Buffer.from('abc')
    const url = await getSignedUrl(
      client,
      new PutObjectCommand({ Bucket: 's3-zone', Key: 'uploads/md5.bin', ContentMD5: createHash('md5').update(signed).digest('base64'), ContentLength: 3 }),
      {
        expiresIn: 60,
        signableHeaders: new Set(['content-md5', 'content-length']),
      },
    )
    const headers = { 'Content-MD5': createHash('md5').update(signed).digest('base64') }
    const refused = await fetch(url, { method: 'PUT', headers, body: Buffer.from('abd') })
    expect(refused.status).to.equal(400)
    expect(await refused.text()).to.include('<Code>BadDigest</Code>')
    expect(emulator.storedFilePath('uploads/md5.bin')).to.equal(undefined)
    const accepted = await fetch(url, { method: 'PUT', headers, body: signed })
    expect(accepted.status).to.equal(200)
  })

  it('refuses an unsigned PUT', async () => {
    const res = await fetch(`${emulator.storage.s3Endpoint}/s3-zone/uploads/unsigned.jpg`, { method: 'PUT', body: 'x' })
    expect(res.status).to.equal(403)
    expect(await res.text()).to.include('<Code>AccessDenied</Code>')
  })
})
