/**
 * `payload storage-host migrate --from s3`, run as the README writes it: a site whose images the official S3
 * adapter (`@payloadcms/storage-s3`) kept in a bucket (s3rver, a real S3-compatible server) moves them onto
 * its zone, with the credentials in the environment as the AWS SDK reads them; the bucket is then stopped
 * and the hosted site serves every file and size from the zone, byte-exact.
 */
import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import type { StorageHostPluginOptions } from '../src/types.js'
import { multipart } from './support/api.js'
import type { CliConfigInput } from './support/cliConfig.js'
import { pngBytes } from './support/media.js'
import { s3Credentials, startS3Bucket, type S3Bucket } from './support/s3Bucket.js'
import { runStorageHostCli } from './support/storageHostCli.js'
import { emulatorOptions, startCms } from './support/startCms.js'

const pluginRoot = fileURLToPath(new URL('..', import.meta.url))
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

describe('payload storage-host migrate --from s3: files kept by the official S3 adapter move onto the zone (issue 41)', function () {
  this.timeout(240_000)
  let emu: RunningEmulator
  let bucket: S3Bucket
  let dataDir: string
  const secret = 'cli-s3-test-secret'
  // Each document's files in the bucket, by name, as the S3 adapter stored them.
  const inBucket = new Map<string, Buffer>()

  const storageHost = (args: string[]) =>
    runStorageHostCli(
      {
        argv: ['npx', '--no-install', 'payload', 'storage-host', 'migrate', '--collection', 'media', ...args],
        configPath: 'test/support/cliConfig.ts',
        cwd: pluginRoot,
        env: { AWS_ACCESS_KEY_ID: s3Credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: s3Credentials.secretAccessKey },
      },
      input(),
    )
  // The site with the plugin: its images in the zone under `uploads/`, the folder the S3 adapter used.
  const hostedOptions = (): StorageHostPluginOptions => ({ ...emulatorOptions(emu), collections: { media: { prefix: 'uploads', target: 'storage' } } })
  const input = (): CliConfigInput => ({ dataDir, options: hostedOptions(), secret })
  const objectOnZone = async (key: string): Promise<Buffer | undefined> => {
    const res = await fetch(`${emu.storage.endpoint}/${emu.storage.zoneName}/${key}`, { headers: { AccessKey: emu.storage.accessKey } })
    return res.ok ? Buffer.from(await res.arrayBuffer()) : undefined
  }

  before(async () => {
    emu = await startEmulator()
    bucket = await startS3Bucket('site-media')
    dataDir = await mkdtemp(join(tmpdir(), 'plugin-storage-cli-s3-'))
    // The site as it was: the S3 adapter on `media`, no storage-host plugin.
    const cms = await startCms(hostedOptions(), { dataDir, s3Media: { bucket: bucket.bucket, endpoint: bucket.endpoint, prefix: 'uploads' }, secret })
    const names: string[] = []
    try {
      for (const [i, width] of [96, 180].entries()) {
        const res = await cms.fetch('/api/media', {
          body: multipart(await pngBytes(width, 40 + i), `kept-${i}.png`, 'image/png', { alt: `kept ${i}` }),
          method: 'POST',
        })
        expect(res.status, await res.clone().text()).to.equal(201)
        const { doc } = (await res.json()) as { doc: { filename: string; sizes: { thumbnail: { filename: string } } } }
        names.push(doc.filename, doc.sizes.thumbnail.filename)
      }
    } finally {
      await cms.close()
    }
    const s3 = new S3Client({ credentials: s3Credentials, endpoint: bucket.endpoint, forcePathStyle: true, region: 'us-east-1' })
    for (const name of names) {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket.bucket, Key: `uploads/${name}` }))
      inBucket.set(name, Buffer.from(await object.Body!.transformToByteArray()))
    }
    s3.destroy()
    // The plugin added to the config: the site's first start with it brings the schema along (a dev push here;
    // `payload migrate` in production), before the files move.
    await (await startCms(hostedOptions(), { dataDir, secret })).close()
  })
  after(async () => {
    await bucket?.close()
    await emu?.close()
    if (dataDir) await rm(dataDir, { force: true, recursive: true })
  })

  it('refuses --from s3 without a bucket, and an endpoint that is not a URL, with the usage (exit 1)', async () => {
    const noBucket = await storageHost(['--from', 's3'])
    expect(noBucket.code).to.equal(1)
    expect(noBucket.stderr).to.include('--from s3 needs --bucket <name>').and.include('Usage:')
    const badEndpoint = await storageHost(['--from', 's3', '--bucket', bucket.bucket, '--endpoint', 'localhost:9000'])
    expect(badEndpoint.code).to.equal(1)
    expect(badEndpoint.stderr).to.include('an http(s) URL is expected')
  })

  it('moves every file and size from the bucket byte-exact; the hosted site serves them with the bucket gone', async () => {
    const dry = await storageHost(['--from', 's3', '--bucket', bucket.bucket, '--endpoint', bucket.endpoint, '--dry-run'])
    expect(dry.code, dry.stderr + dry.stdout).to.equal(0)
    expect(dry.stdout).to.include(`from S3 bucket "${bucket.bucket}" to storage zone`)
    expect(dry.stdout.match(/would upload uploads\//g)).to.have.length(inBucket.size)
    for (const name of inBucket.keys()) expect(await objectOnZone(`uploads/${name}`), name).to.equal(undefined)

    const run = await storageHost(['--from', 's3', '--bucket', bucket.bucket, '--endpoint', bucket.endpoint])
    expect(run.code, run.stderr + run.stdout).to.equal(0)
    expect(run.stdout).to.include(`2 document(s): ${inBucket.size} file(s) uploaded`).and.include('0 failed')
    for (const [name, bytes] of inBucket) expect(sha256((await objectOnZone(`uploads/${name}`))!), name).to.equal(sha256(bytes))
    expect(run.stdout + run.stderr).not.to.include(s3Credentials.secretAccessKey)

    // Again: everything is there with the same digest; nothing is sent.
    const again = await storageHost(['--from', 's3', '--bucket', bucket.bucket, '--endpoint', bucket.endpoint])
    expect(again.code, again.stderr + again.stdout).to.equal(0)
    expect(again.stdout).to.include(`0 file(s) uploaded (0.0 MiB), ${inBucket.size} already on the zone`)

    await bucket.close()
    process.env.PAYLOAD_MIGRATING = 'true'
    const cms = await startCms(hostedOptions(), { dataDir, secret }).finally(() => delete process.env.PAYLOAD_MIGRATING)
    try {
      const { docs } = (await (await cms.fetch('/api/media?sort=id')).json()) as { docs: Array<{ url: string; sizes: { thumbnail: { url: string } } }> }
      const urls = docs.flatMap((doc) => [doc.url, doc.sizes.thumbnail.url])
      expect(urls).to.have.length(inBucket.size)
      for (const [k, url] of urls.entries()) {
        const res = await cms.fetch(new URL(url, cms.url).pathname + new URL(url, cms.url).search)
        expect(res.status, url).to.equal(200)
        expect(sha256(Buffer.from(await res.arrayBuffer())), url).to.equal(sha256([...inBucket.values()][k]!))
      }
    } finally {
      await cms.close()
    }
  })
})
