/**
 * @module test/install/debianServer
 * Issue 24 #11: the README's Debian server install, run as written. The fenced block between
 * `<!-- install:debian -->` and `<!-- /install:debian -->` runs as root in a throwaway root: a private
 * mount namespace (`unshare`) with overlays over `/etc`, `/usr` and `/var/lib`, so its
 * `useradd`, `npm install -g` (npm's global prefix is `/usr` on Debian), config, env file and unit land in
 * upper layers that vanish with the namespace. Two substitutions only: `sudo` is a function that runs
 * its arguments (we are root; Debian's minimal images have no sudo), and the package name in the
 * `npm install -g` line is the tarball `npm pack` made (the package is not published yet). The block
 * itself runs `systemd-analyze verify` on the installed unit. Then the unit's own `ExecStart` (read from
 * the installed file, its environment from the installed `EnvironmentFile`) starts as the service user
 * with systemd's search path, in a network namespace of its own (so port 8080 is free), and the daemon must serve: login with the password given to
 * `hash-password`, a run of the example job, its snapshot under /var/lib/backup-daemon.
 *
 * Runs alone (scripts/run-tests.mjs): `npm pack` runs the package's prepack build in the package folder other files read.
 */
import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const packageDir = fileURLToPath(new URL('../../', import.meta.url))
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8')
const password = 'correct horse battery staple'

/** The commands of the README's marked block, as written. */
export function installBlock(text: string): string {
  const match = /<!-- install:debian -->\n```sh\n([\s\S]*?)\n```\n<!-- \/install:debian -->/.exec(text)
  if (!match?.[1]) throw new Error('README.md has no block between <!-- install:debian --> and <!-- /install:debian -->')
  return match[1]
}

function need(command: string): void {
  if (spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0)
    throw new Error(`${command} is missing (Debian package: ${command === 'systemd-analyze' ? 'systemd' : command})`)
}

/** Runs inside the namespaces: overlays, the README's block, then the unit's ExecStart as its user. */
const driver = (work: string, tarball: string) => `set -euo pipefail
for dir in etc usr var/lib; do
  mkdir -p "${work}/upper/$dir" "${work}/work/$dir"
  mount -t overlay overlay -o "lowerdir=/$dir,upperdir=${work}/upper/$dir,workdir=${work}/work/$dir" "/$dir"
done
sudo() { "$@"; }
export -f sudo
echo '### install'
# The README's block with the tarball for the unregistered package name; stdin answers hash-password.
sed 's#^sudo npm install -g @hosted-media/backup-daemon$#sudo npm install -g ${tarball} --prefer-offline --no-audit --no-fund --loglevel=error#' "${work}/install.sh" > "${work}/install-local.sh"
grep -q '${tarball}' "${work}/install-local.sh"
bash -euo pipefail "${work}/install-local.sh" < "${work}/password"
echo '### installed'
id backup-daemon
stat -c '%U %a %n' /var/lib/backup-daemon /etc/backup-daemon/env
# The daemon in a network namespace of its own (loopback only): port 8080 is free whatever else runs here.
exec unshare --net bash -euo pipefail "${work}/serve.sh"
`

/** Runs in a further network namespace: the unit's ExecStart as its user, then what a person checks. */
const serve = (work: string) => `ip link set lo up
unit=/etc/systemd/system/backup-daemon.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
user=$(sed -n 's/^User=//p' "$unit")
env_file=$(sed -n 's/^EnvironmentFile=-\\{0,1\\}//p' "$unit")
echo "ExecStart=$exec_start User=$user"
set -a; . "$env_file"; set +a
# systemd's fixed search path for a command named without a folder.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cd /
setpriv --reuid="$user" --regid="$user" --init-groups -- $exec_start > "${work}/daemon.out" 2>&1 &
pid=$!
for i in $(seq 1 300); do grep -q 'listening on' "${work}/daemon.out" && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
cat "${work}/daemon.out"
curl -sS -o /dev/null -w 'jobs without login: %{http_code}\\n' http://127.0.0.1:8080/api/v1/jobs
curl -sS -c "${work}/cookies" -H 'content-type: application/json' -d '{"username":"admin","password":"${password}"}' -o /dev/null -w 'login: %{http_code}\\n' http://127.0.0.1:8080/api/v1/auth/login
curl -sS -b "${work}/cookies" -X POST -o /dev/null -w 'run: %{http_code}\\n' http://127.0.0.1:8080/api/v1/jobs/site/run
for i in $(seq 1 300); do ls /var/lib/backup-daemon/snapshots/site/ 2>/dev/null | grep -q '\\.tar\\.zst$' && break; sleep 0.1; done
echo '### snapshots'
find /var/lib/backup-daemon/snapshots -name '*.tar.zst' -printf '%u %f\\n'
kill -TERM $pid
wait $pid && echo 'daemon exit: 0' || echo "daemon exit: $?"
`

describe('README: the Debian server install, run as written (issue 24 #11)', function () {
  this.timeout(600_000)
  let work: string

  before(function () {
    if (process.getuid?.() !== 0) throw new Error('needs root (the install runs as root in a private mount namespace)')
    for (const command of ['unshare', 'setpriv', 'useradd', 'runuser', 'curl', 'openssl', 'systemd-analyze']) need(command)
    work = mkdtempSync(join(tmpdir(), 'bd-debian-'))
  })
  after(() => work && rmSync(work, { recursive: true, force: true }))

  it('the block uses its own user, /var/lib/backup-daemon and no folder in ExecStart', () => {
    const block = installBlock(readme)
    expect(block).to.include('useradd --system')
    expect(block).to.match(/ backup-daemon$/m)
    expect(block).not.to.match(/useradd[^\n]* backup$/m)
    expect(block).not.to.include('/var/backups')
    const unit = readFileSync(join(packageDir, 'systemd/backup-daemon.service'), 'utf8')
    expect(unit).to.match(/^ExecStart=backup-daemon /m)
    expect(unit).to.match(/^User=backup-daemon$/m)
    expect(unit).not.to.include('/usr/local/bin/backup-daemon')
  })

  it('installs from the tarball, passes systemd-analyze verify, and the unit ExecStart serves as backup-daemon', () => {
    const packed = spawnSync('npm', ['pack', '--pack-destination', work, '--silent'], { cwd: packageDir, encoding: 'utf8' })
    expect(packed.status, packed.stderr).to.equal(0)
    const tarball = join(work, packed.stdout.trim().split('\n').pop()!)
    writeFileSync(join(work, 'install.sh'), installBlock(readme))
    writeFileSync(join(work, 'password'), `${password}\n`)
    writeFileSync(join(work, 'driver.sh'), driver(work, tarball))
    writeFileSync(join(work, 'serve.sh'), serve(work))
    const result = spawnSync('unshare', ['--mount', '--propagation', 'private', 'bash', join(work, 'driver.sh')], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 540_000,
      // A root shell's PATH: not the one npm/mocha put the repository's node_modules/.bin on.
      env: { ...process.env, DEBUG: '', PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', npm_config_prefix: '', NPM_CONFIG_PREFIX: '' },
    })
    const output = `${result.stdout}\n${result.stderr}`
    expect(result.status, output).to.equal(0)
    expect(output, output).to.match(/^\/usr\/bin\/backup-daemon$/m) // command -v: npm's prefix /usr, no /usr/local
    expect(output, output).to.include('config OK: 1 job(s)')
    expect(output, output).to.match(/uid=\d+\(backup-daemon\) gid=\d+\(backup-daemon\)/)
    expect(output, output).to.include('backup-daemon 700 /var/lib/backup-daemon')
    expect(output, output).to.include('root 600 /etc/backup-daemon/env')
    expect(output, output).to.include('ExecStart=backup-daemon --config /etc/backup-daemon/backup-daemon.yaml User=backup-daemon')
    expect(output, output).to.include('backup-daemon listening on http://127.0.0.1:8080')
    expect(output, output).to.include('jobs without login: 401')
    expect(output, output).to.include('login: 200')
    expect(output, output).to.include('run: 202')
    expect(output, output).to.match(/### snapshots\nbackup-daemon site-\S+\.tar\.zst\n/)
    expect(output, output).to.include('daemon exit: 0')
  })
})
