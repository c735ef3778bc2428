import { expect } from 'chai'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runCli } from '../support/runCli.js'

describe('tasks: the CLI restore --to shares restoreFiles (nothing half-written)', function () {
  this.timeout(120_000)
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'bd-cli-restore-'))
    mkdirSync(join(dir, 'src', 'sub'), { recursive: true })
    writeFileSync(join(dir, 'src', 'a.txt'), 'from the snapshot\n')
    writeFileSync(join(dir, 'src', 'sub', 'b.txt'), 'b\n')
    writeFileSync(
      join(dir, 'config.yaml'),
      'dataDir: ./data\njobs:\n  - name: files\n' +
        '    sources: [{ type: local, name: tree, path: ./src }]\n    storages: [{ type: local, name: disk, path: ./store }]\n',
    )
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('refuses a clash in an existing folder without --force leaving it unchanged, replaces with --force', async () => {
    const run = await runCli(['run', 'files', '--config', 'config.yaml'], { cwd: dir })
    expect(run.code, run.out).to.equal(0)
    const snapshot = readdirSync(join(dir, 'store', 'files')).find((n) => !n.endsWith('.manifest.json'))!
    const out = join(dir, 'out')
    mkdirSync(join(out, 'tree'), { recursive: true })
    writeFileSync(join(out, 'tree', 'a.txt'), 'local edit\n')
    const refused = await runCli(['restore', 'files', snapshot, '--config', 'config.yaml', '--to', 'out'], { cwd: dir })
    expect(refused.code, refused.out).to.equal(1)
    expect(refused.out).to.include('tree/a.txt (exists)').and.include('nothing was restored')
    expect(readdirSync(join(out, 'tree'))).to.deep.equal(['a.txt'])
    expect(readFileSync(join(out, 'tree', 'a.txt'), 'utf8')).to.equal('local edit\n')
    expect(readdirSync(dir).filter((n) => n.includes('.restore-'))).to.deep.equal([])

    const forced = await runCli(['restore', 'files', snapshot, '--config', 'config.yaml', '--to', 'out', '--force'], { cwd: dir })
    expect(forced.code, forced.out).to.equal(0)
    expect(readFileSync(join(out, 'tree', 'a.txt'), 'utf8')).to.equal('from the snapshot\n')
    expect(readFileSync(join(out, 'tree', 'sub', 'b.txt'), 'utf8')).to.equal('b\n')
  })
})
