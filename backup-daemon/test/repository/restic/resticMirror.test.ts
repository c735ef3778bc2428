/**
 * @module test/repository/restic/resticMirror
 * A remote source with a mirror folder (`s3` with `syncPath`, on s3rver) into a restic repository: the
 * mirror is synced and backed up as a folder (a path snapshot, not a dump), restored as `<source>/…`;
 * without `syncPath` the same source goes the dump way (`<source>.tar` through stdin).
 */
import { expect } from 'chai'
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { resticJson } from '../../../src/repository/restic/resticProcess.js'
import { tempDir } from '../../engine/helpers.js'
import { runCli } from '../../support/runCli.js'
import { startS3rver, type RunningS3 } from '../../storages/support/s3rver.js'
import { treeOf } from './support/treeOf.js'
import { requireRestic } from '../../support/requireRestic.js'

describe('restic storage: a remote source through its mirror folder', function () {
  this.timeout(180_000)
  let tmp: { dir: string; remove(): Promise<void> }
  let s3: RunningS3
  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-mirror-')
    s3 = await startS3rver('media')
    const client = new S3Client({
      region: 'us-east-1',
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    })
    for (const [key, body] of Object.entries({ 'uploads/a.jpg': 'jpeg bytes', 'uploads/deep/b.png': 'png bytes', 'uploads/c.txt': 'text' })) {
      await client.send(new PutObjectCommand({ Bucket: 'media', Key: key, Body: body }))
    }
    client.destroy()
  })
  after(async () => {
    await s3?.close()
    await tmp?.remove()
  })

  it('backs the synced mirror up as a path, and a source without syncPath as a dump; both restore', async () => {
    const s3Keys = `bucket: media, endpoint: "${s3.endpoint}", accessKeyId: S3RVER, secretAccessKey: S3RVER, path: uploads`
    const file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(
      file,
      `dataDir: ./data
jobs:
  - name: media
    sources:
      - { type: s3, name: synced, ${s3Keys}, syncPath: ./mirror }
      - { type: s3, name: fetched, ${s3Keys} }
    storages:
      - { type: restic, name: dedup, repository: ./repo, password: mirror-pass }
`,
    )
    const run = await runCli(['run', 'media', '--config', file], { cwd: tmp.dir })
    expect(run.code, run.out).to.equal(0)
    const snapshots = await resticJson<{ paths: string[]; tags: string[] }[]>(
      { repository: join(tmp.dir, 'repo'), password: 'mirror-pass', cacheDir: join(tmp.dir, 'cache') },
      ['snapshots', '--no-lock'],
    )
    const bySource = Object.fromEntries(snapshots.map((s) => [s.tags.find((t) => t.startsWith('source=')) ?? 'commit', s]))
    expect(bySource['source=synced']!.paths).to.deep.equal([join(tmp.dir, 'mirror')])
    expect(bySource['source=synced']!.tags).to.not.include('dump')
    expect(bySource['source=fetched']!.paths).to.deep.equal(['/fetched.tar'])
    expect(bySource['source=fetched']!.tags).to.include('dump')

    const name = JSON.parse((await runCli(['snapshots', 'media', '--json', '--config', file], { cwd: tmp.dir })).out.trim()).name as string
    const restore = await runCli(['restore', 'media', name, '--to', './out', '--config', file], { cwd: tmp.dir })
    expect(restore.code, restore.out).to.equal(0)
    const mirror = await treeOf(join(tmp.dir, 'mirror'))
    expect(Object.keys(mirror).sort()).to.deep.equal(['a.jpg', 'c.txt', 'deep', 'deep/b.png'])
    expect(await treeOf(join(tmp.dir, 'out/synced'))).to.deep.equal(mirror)
    expect(await treeOf(join(tmp.dir, 'out/fetched'))).to.deep.equal(mirror)
  })
})
