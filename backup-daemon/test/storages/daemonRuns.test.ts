/**
 * `backup-daemon run` as a real child process writing to a real sftp and WebDAV server: snapshots
 * listed, retention applied, `restore` gives back identical files, and a kill -9 mid-upload leaves
 * nothing listed as a snapshot; the next run cleans up and succeeds.
 */
import { expect } from 'chai'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { listCatalog } from '../../src/repository/archives/catalog.js'
import { sftpStorage } from '../../src/storages/sftp/index.js'
import type { Storage } from '../../src/storages/types.js'
import { webdavStorage } from '../../src/storages/webdav/index.js'
import { tempDir, waitFor } from '../engine/helpers.js'
import { startSshServer, type SshServer } from '../support/sshServer.js'
import { startWebdavServer, type WebdavServer } from '../support/webdavServer.js'

const bin = fileURLToPath(new URL('../../bin/backup-daemon.js', import.meta.url))

function start(args: string[], cwd: string): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> } {
  const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '' } })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  return { child, done: new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, output }))) }
}

const filesBelow = async (dir: string) =>
  (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))

interface Kind {
  type: string
  setup(): Promise<{ yaml: string; storage: Storage; serverFolder: string; stop(): Promise<void> }>
}

const kinds: Kind[] = [
  {
    type: 'sftp',
    setup: async () => {
      const server: SshServer = await startSshServer()
      const entry = {
        type: 'sftp',
        name: 'remote',
        host: server.host,
        port: server.port,
        username: server.username,
        privateKey: server.clientKey,
        knownHosts: server.knownHosts,
        path: join(server.root, 'backups'),
      }
      return {
        yaml: JSON.stringify(entry),
        storage: sftpStorage.create(sftpStorage.configSchema.parse(entry)),
        serverFolder: join(server.root, 'backups'),
        stop: () => server.stop(),
      }
    },
  },
  {
    type: 'webdav',
    setup: async () => {
      const server: WebdavServer = await startWebdavServer()
      const entry = { type: 'webdav', name: 'remote', url: server.url, username: server.username, password: server.password, path: 'backups' }
      return {
        yaml: JSON.stringify(entry),
        storage: webdavStorage.create(webdavStorage.configSchema.parse(entry)),
        serverFolder: join(server.root, 'backups'),
        stop: () => server.stop(),
      }
    },
  },
]

for (const kind of kinds) {
  describe(`backup-daemon run into ${kind.type} (child processes, a real server)`, function () {
    this.timeout(120_000)
    let tmp: Awaited<ReturnType<typeof tempDir>>
    let remote: Awaited<ReturnType<Kind['setup']>>
    const children: ChildProcess[] = []
    beforeEach(async () => {
      tmp = await tempDir()
      remote = await kind.setup()
      await mkdir(join(tmp.dir, 'src'))
    })
    afterEach(async () => {
      for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await remote.stop()
      await tmp.remove()
    })

    const writeJob = async (extra = '') => {
      const file = join(tmp.dir, 'backup-daemon.yaml')
      await writeFile(
        file,
        `dataDir: ./data\njobs:\n  - name: j\n    compression: tar\n    sources:\n      - { type: local, name: files, path: ./src }\n    storages:\n      - ${remote.yaml}\n${extra}`,
      )
      return file
    }

    it('writes snapshots, lists them, applies retention, and restores identical files', async () => {
      const file = await writeJob('    retention: { last: 2 }\n')
      const contents: Buffer[] = []
      for (let i = 0; i < 3; i++) {
        contents.push(randomBytes(200_000 + i))
        await writeFile(join(tmp.dir, 'src', 'data.bin'), contents[i]!)
        const result = await start(['run', 'j', '--config', file], tmp.dir).done
        expect(result.code, result.output).to.equal(0)
        // Distinct snapshot names need distinct creation times (milliseconds in the name).
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      const { snapshots, orphans } = await listCatalog(remote.storage, 'j')
      expect(snapshots).to.have.length(2)
      expect(orphans).to.deep.equal([])
      const newest = snapshots
        .map((s) => s.view.name)
        .sort()
        .at(-1)!
      const to = join(tmp.dir, 'restored')
      const restored = await start(['restore', 'j', newest, '--config', file, '--to', to], tmp.dir).done
      expect(restored.code, restored.output).to.equal(0)
      expect((await readFile(join(to, 'files', 'data.bin'))).equals(contents[2]!)).to.equal(true)
    })

    it('kill -9 mid-upload leaves no listed snapshot; the next run removes the leftovers and succeeds', async () => {
      await writeFile(join(tmp.dir, 'src', 'big.bin'), randomBytes(48 << 20))
      const file = await writeJob('    split: { chunkSize: 1048576 }\n')
      const run = start(['run', 'j', '--config', file], tmp.dir)
      children.push(run.child)
      await waitFor(async () => (await filesBelow(remote.serverFolder)).length >= 3, 60_000, 'parts on the server')
      run.child.kill('SIGKILL')
      expect((await run.done).signal).to.equal('SIGKILL')
      const after = await listCatalog(remote.storage, 'j')
      expect(after.snapshots).to.deep.equal([])
      expect(after.orphans.length).to.be.greaterThan(0)

      await rm(join(tmp.dir, 'src', 'big.bin'))
      await writeFile(join(tmp.dir, 'src', 'small.txt'), 'small')
      const next = await start(['run', 'j', '--config', file], tmp.dir).done
      expect(next.code, next.output).to.equal(0)
      const jobLog = await readFile(join(tmp.dir, 'data', 'logs', 'jobs', 'j.log'), 'utf8')
      expect(jobLog).to.match(/removed \d+ object\(s\) left by an unfinished run/)
      const final = await listCatalog(remote.storage, 'j')
      expect(final.snapshots).to.have.length(1)
      expect(final.orphans).to.deep.equal([])
    })
  })
}
