/**
 * @module test/repository/restic/resticRestore
 * A restore from restic by restic's own restorer (issue 42), still a restore of untrusted input (issue 37):
 * - `planTreeRestore` on crafted listings (a fake `restic` printing them): a name listed twice in a folder,
 *   `..`, a name holding `/` or NUL, a device, a set-user-ID bit each send the snapshot to the tar path,
 *   with the reason; an ordinary tree is counted, its root's mode and time first;
 * - `backup-daemon restore --to` on a real repository: the task says restic restores; the tree comes back
 *   equal (a read-only folder, a link, a backslash and a newline in a name), with the root's own mode and time, every
 *   entry owned by the daemon's user; a tree with a set-user-ID file and a FIFO goes through the tar path,
 *   which clears the bit and makes no FIFO, as it always did.
 */
import { expect } from 'chai'
import { execFileSync } from 'node:child_process'
import { chmod, chown, lstat, mkdir, readdir, symlink, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { planTreeRestore } from '../../../src/repository/restic/restorePlan.js'
import type { RunSource } from '../../../src/repository/restic/resticRuns.js'
import { tempDir } from '../../engine/helpers.js'
import { writeDaemonYaml } from '../../support/daemonYaml.js'
import { requireRestic } from '../../support/requireRestic.js'
import { runCli } from '../../support/runCli.js'
import { treeOf } from './support/treeOf.js'

const dirMode = 2 ** 31
const node = (path: string, type: string, extra: Record<string, unknown> = {}) => ({
  path,
  type,
  mode: type === 'dir' ? dirMode + 0o755 : 0o644,
  mtime: '2023-11-14T22:13:20Z',
  uid: process.getuid!(),
  gid: process.getgid!(),
  size: type === 'file' ? 5 : undefined,
  ...extra,
})
const ancestors = [node('/srv', 'dir'), node('/srv/site', 'dir', { mode: dirMode + 0o750 })]

describe('restic restore: restic restores a run, only when its listing is safe', function () {
  this.timeout(240_000)
  let tmp: { dir: string; remove(): Promise<void> }
  before(async () => {
    await requireRestic()
    tmp = await tempDir('bd-restic-restore-')
  })
  after(() => tmp?.remove())

  describe('planTreeRestore on crafted listings', () => {
    const source: RunSource = { name: 'files', id: 'abc', form: 'tree', root: '/srv/site' }
    let listings = 0
    /** Plans `nodes` as `restic find --json` would print them (a fake restic binary). */
    const plan = async (nodes: object[]) => {
      const file = join(tmp.dir, `listing-${++listings}.json`)
      await writeFile(file, JSON.stringify([{ matches: nodes, hits: nodes.length, snapshot: 'abc' }]))
      const fake = join(tmp.dir, `fake-restic-${listings}`)
      await writeFile(fake, `#!/bin/sh\ncat '${file}'\n`, { mode: 0o755 })
      return planTreeRestore({ binary: fake, repository: '/nowhere', password: 'unused' }, source)
    }

    it('counts an ordinary tree, its root folder first with its own mode and time', async () => {
      const planned = await plan([
        ...ancestors,
        node('/srv/site/a', 'dir'),
        node('/srv/site/a/one.txt', 'file'),
        node('/srv/site/a/back\\slash', 'file', { size: 7 }),
        node('/srv/site/link', 'symlink', { linktarget: '/etc/passwd' }),
        node('/srv/site/two.txt', 'file'),
      ])
      expect(planned).to.deep.include({ files: 3, directories: 1, links: 1, bytes: 17, foreignOwners: 0 })
      if ('because' in planned) throw new Error(planned.because)
      expect(planned.folders.map((f) => [f.components, f.mode.toString(8)])).to.deep.equal([
        [['files'], '750'],
        [['files', 'a'], '755'],
      ])
      expect(planned.folders[0]!.mtime.toISOString()).to.equal('2023-11-14T22:13:20.000Z')
    })

    const crafted: [string, object[], RegExp][] = [
      [
        'a link and a folder of one name',
        [node('/srv/site/x', 'symlink'), node('/srv/site/x', 'dir'), node('/srv/site/x/shadow', 'file')],
        /"\/srv\/site\/x" is listed twice/,
      ],
      [
        'a name listed twice after the folder it shadows',
        [node('/srv/site/a', 'dir'), node('/srv/site/a/b', 'file'), node('/srv/site/a/b', 'file')],
        /listed twice/,
      ],
      ['a `..` step', [node('/srv/site/..', 'dir'), node('/srv/site/../etc', 'dir')], /unusual name \("\/srv\/site\/\.\."\)/],
      ['a NUL in a name', [node('/srv/site/a\u0000b', 'file')], /unusual name/],
      ['a name holding a slash (a child with no folder listed)', [node('/srv/site/a/b', 'file')], /unusual name/],
      ['a device', [node('/srv/site/sda', 'dev')], /"\/srv\/site\/sda" is a dev, which is not restored/],
      ['a set-user-ID file', [node('/srv/site/su', 'file', { mode: 2 ** 23 + 0o755 })], /set-user-ID/],
    ]
    for (const [what, nodes, reason] of crafted) {
      it(`sends ${what} to the tar path, saying why`, async () => {
        const planned = await plan([...ancestors, ...nodes])
        expect(planned).to.have.property('because').that.matches(reason)
      })
    }
  })

  describe('backup-daemon restore --to on a real repository', () => {
    const env = { RESTIC_TEST_PASSWORD: 'restic restore passphrase' }
    let file: string
    const cli = (...args: string[]) => runCli([...args, '--config', file], { cwd: tmp.dir, env })
    const newest = async () => JSON.parse((await cli('snapshots', 'site', '--json')).out.split('\n')[0]!).name as string
    const source = () => join(tmp.dir, 'src')

    before(async () => {
      await mkdir(join(source(), 'read-only', 'deeper'), { recursive: true })
      await writeFile(join(source(), 'read-only', 'deeper', 'kept.txt'), 'kept')
      await writeFile(join(source(), 'back\\slash and\nnewline.txt'), 'a legal name')
      await symlink('read-only/deeper/kept.txt', join(source(), 'link'))
      await writeFile(join(source(), 'owned-by-another.txt'), 'theirs')
      if (process.getuid!() === 0) await chown(join(source(), 'owned-by-another.txt'), 1234, 1234)
      await chmod(join(source(), 'read-only'), 0o555)
      await chmod(source(), 0o750)
      await utimes(source(), new Date('2023-11-14T22:13:20Z'), new Date('2023-11-14T22:13:20Z'))
      file = await writeDaemonYaml(
        tmp.dir,
        `  - name: site
    sources: [{ type: local, name: files, path: ./src }]
    storages: [{ type: restic, name: dedup, repository: ./repo, password: env:RESTIC_TEST_PASSWORD }]
`,
      )
    })

    it('restores with restic restore: the same tree, the root with its mode and time, every entry the daemon user’s', async () => {
      const run = await cli('run', 'site')
      expect(run.code, run.out).to.equal(0)
      const into = join(tmp.dir, 'restored')
      const restore = await cli('restore', 'site', await newest(), '--to', into)
      expect(restore.code, restore.out).to.equal(0)
      expect(restore.out).to.include('restoring with restic restore')
      expect(await treeOf(join(into, 'files'))).to.deep.equal(await treeOf(source()))
      const root = await lstat(join(into, 'files'))
      expect((root.mode & 0o7777).toString(8)).to.equal('750')
      expect(root.mtime.toISOString()).to.equal('2023-11-14T22:13:20.000Z')
      expect(((await lstat(join(into, 'files', 'read-only'))).mode & 0o777).toString(8)).to.equal('555')
      expect((await lstat(join(into, 'files', 'owned-by-another.txt'))).uid).to.equal(process.getuid!())
      // Nothing of restic's own folder is left beside the restored source.
      expect(await readdir(into)).to.deep.equal(['files'])
    })

    it('takes the tar path for a tree with a set-user-ID file and a FIFO: the bit cleared, no FIFO made', async () => {
      await chmod(join(source(), 'read-only'), 0o755)
      await writeFile(join(source(), 'setuid-tool'), '#!/bin/sh\n', { mode: 0o755 })
      await chmod(join(source(), 'setuid-tool'), 0o4755)
      execFileSync('mkfifo', [join(source(), 'pipe')])
      const run = await cli('run', 'site')
      expect(run.code, run.out).to.equal(0)
      const into = join(tmp.dir, 'restored-tar')
      const restore = await cli('restore', 'site', await newest(), '--to', into)
      expect(restore.code, restore.out).to.equal(0)
      expect(restore.out).to.match(/restoring through the tar path: source "files": .* (set-user-ID|fifo)/)
      expect(((await lstat(join(into, 'files', 'setuid-tool'))).mode & 0o7777).toString(8)).to.equal('755')
      // restic's own tar (`dump --archive tar`) writes a FIFO as an empty regular file: no FIFO is made either way.
      expect((await lstat(join(into, 'files', 'pipe'))).isFIFO()).to.equal(false)
    })
  })
})
