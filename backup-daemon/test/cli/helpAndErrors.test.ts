/**
 * Help that teaches and errors that say what to do (issue 30), on the real command: every command's
 * `--help` has an example; an unknown command, option, job, storage or config key names the nearest
 * valid one; a bad flag value names the command, the flag and a value to give.
 */
import { expect } from 'chai'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { suggest } from '../../src/cli/terminal/suggest.js'
import { tempDir } from '../engine/helpers.js'
import { runSplit } from './support/runSplit.js'

const config = `dataDir: ./data
jobs:
  - name: site
    sources: [{ type: local, name: tree, path: ./src }]
    storages: [{ type: local, name: disk, path: ./store }]
`

describe('backup-daemon help and error messages', function () {
  this.timeout(60_000)
  let tmp: Awaited<ReturnType<typeof tempDir>>
  let file: string
  before(async () => {
    tmp = await tempDir()
    file = join(tmp.dir, 'backup-daemon.yaml')
    await writeFile(file, config)
  })
  after(() => tmp.remove())
  const cli = (...args: string[]) => runSplit(args, { cwd: tmp.dir })

  it('COMMAND --help shows the command, its options and an example to copy', async () => {
    for (const command of ['serve', 'check-config', 'hash-password', 'run', 'snapshots', 'verify', 'restore']) {
      const help = await cli(command, '--help')
      expect(help.code, command).to.equal(0)
      expect(help.stdout, command).to.match(new RegExp(`^Usage: backup-daemon \\[?${command}`))
      expect(help.stdout, command).to.match(/\nExamples?:\n {2}backup-daemon /)
    }
    expect((await cli('run', '--help')).stdout).to.include('--progress-interval S')
    expect((await cli('--help')).stdout).to.include('snapshots JOB')
  })

  it('an unknown command or option names the nearest one', async () => {
    const command = await cli('snapshot', 'site')
    expect(command.code).to.equal(2)
    expect(command.stderr).to.include('unknown command "snapshot"; did you mean `snapshots`?')
    const far = await cli('frobnicate')
    expect(far.stderr).to.match(/^unknown command "frobnicate" \(commands: serve, check-config, .*snapshots.*; see backup-daemon --help\)\n$/)
    const option = await cli('verify', 'site', '--storag', 'disk', '--config', file)
    expect(option.code).to.equal(2)
    expect(option.stderr).to.equal('verify: unknown option --storag; did you mean --storage? (see backup-daemon verify --help)\n')
  })

  it('an unknown job or storage names the nearest and lists them', async () => {
    const job = await cli('snapshots', 'sit', '--config', file)
    expect(job.code).to.equal(2)
    expect(job.stderr).to.equal(`snapshots: no job "sit" in ${file}; did you mean "site"? (jobs: site)\n`)
    const storage = await cli('verify', 'site', '--storage', 'dsk', '--config', file)
    expect(storage.code).to.equal(2)
    expect(storage.stderr).to.equal('verify: --storage "dsk": job "site" has no such storage; did you mean "disk"? (storages: disk)\n')
  })

  it('snapshots of a job with none says so (exit 0); --json prints nothing', async () => {
    const table = await cli('snapshots', 'site', '--config', file)
    expect(table.code).to.equal(0)
    expect(table.stdout).to.equal('no snapshots of job "site" on "disk"\n')
    const json = await cli('snapshots', 'site', '--config', file, '--json')
    expect(json.code).to.equal(0)
    expect(json.stdout).to.equal('')
  })

  it('an option of another command is refused, naming the commands it belongs to', async () => {
    const run = await cli('run', 'site', '--config', file, '--storage', 'disk')
    expect(run.code).to.equal(2)
    expect(run.stderr).to.equal(
      'run: --storage is not an option of run (an option of snapshots, verify, drill, restore); leave it out, see backup-daemon run --help\n',
    )
    const listing = await cli('snapshots', 'site', '--config', file, '--limit-download', '1M')
    expect(listing.code).to.equal(2)
    expect(listing.stderr).to.match(/^snapshots: --limit-download is not an option of snapshots \(an option of verify, drill, restore\)/)
  })

  it('run of an unknown job names the nearest, even with --json (plain on stderr, exit 2)', async () => {
    const result = await cli('run', 'sites', '--config', file, '--json')
    expect(result.code).to.equal(2)
    expect(result.stdout).to.equal('')
    expect(result.stderr).to.equal(`run: no job "sites" in ${file}; did you mean "site"? (jobs: site)\n`)
  })

  it('a bad flag value or a missing flag names the command, the flag and what to give', async () => {
    const interval = await cli('run', 'site', '--config', file, '--progress-interval', 'often')
    expect(interval.code).to.equal(2)
    expect(interval.stderr).to.equal('run: --progress-interval "often" is not a number of seconds above 0; give e.g. --progress-interval 10\n')
    const rate = await cli('verify', 'site', '--config', file, '--limit-download', 'fast')
    expect(rate.code).to.equal(2)
    expect(rate.stderr).to.match(/^verify: --limit-download "fast" is not a rate .*e\.g\. --limit-download 2M\)\n$/)
    const target = await cli('restore', 'site', 'x', '--config', file)
    expect(target.code).to.equal(2)
    expect(target.stderr).to.include(
      'restore: give either --to DIR (unpack the files into a folder), --into-database (restore the database sources in place) or --into-database NAME',
    )
    // The database kinds it names come from the source registry (each kind's restore declaration).
    const noDatabase = await cli('restore', 'site', 'x', '--config', file, '--into-database')
    expect(noDatabase.code).to.equal(2)
    expect(noDatabase.stderr).to.include(
      'restore: job "site" has no database source; --into-database restores sqlite, postgresql, mongodb, mysql, mariadb and redis (with a path) sources, use --to DIR for files',
    )
    const value = await cli('snapshots', 'site', '--config', file, '--storage')
    expect(value.code).to.equal(2)
    expect(value.stderr).to.match(/^snapshots: --storage needs a value/)
  })

  it('check-config names the nearest valid key of a misspelled one, where it is (server, source, storage, job)', async () => {
    const bad = join(tmp.dir, 'bad.yaml')
    await writeFile(
      bad,
      'server:\n  adress: x\njobs:\n  - name: a\n    sources: [{ type: local, name: f, path: ./src, exlude: [] }]\n    storages: [{ type: s3, name: s, bucket: b, regoin: x }]\n    retenton: 3\n    zzz: 1\n',
    )
    const result = await cli('check-config', '--config', bad)
    expect(result.code).to.equal(1)
    expect(result.stderr.trimEnd().split('\n')).to.deep.equal([
      `${bad}:2:3 server.adress: unknown key "adress"; did you mean "address"?`,
      // In the same pass as the typos (issue 38), in file order.
      `${bad}:5:45 jobs[0].sources[0].path: ${join(tmp.dir, 'src')} does not exist: the job would fail; fix the path`,
      `${bad}:5:52 jobs[0].sources[0].exlude: unknown key "exlude"; did you mean "exclude"?`,
      `${bad}:6:48 jobs[0].storages[0].regoin: unknown key "regoin"; did you mean "region"?`,
      `${bad}:7:5 jobs[0].retenton: unknown key "retenton"; did you mean "retention"?`,
      `${bad}:8:5 jobs[0].zzz: unknown key "zzz"`,
      `6 error(s) in ${bad}`,
    ])
  })

  it('suggest: the nearest word within a third of its length, nothing when none is close', () => {
    expect(suggest('snapshto', ['run', 'snapshots', 'verify'])).to.equal('snapshots')
    expect(suggest('verfiy', ['run', 'snapshots', 'verify'])).to.equal('verify')
    expect(suggest('RUN', ['run'])).to.equal('run')
    expect(suggest('stor', ['storage', 'source'])).to.equal('storage')
    expect(suggest('s', ['storage', 'source'])).to.equal(undefined)
    expect(suggest('frobnicate', ['run', 'snapshots', 'verify', 'restore'])).to.equal(undefined)
    expect(suggest('x', [])).to.equal(undefined)
  })
})
