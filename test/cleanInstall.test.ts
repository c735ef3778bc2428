/**
 * A fresh clone stays clean and quiet through `npm install`:
 * - the lock file is what npm writes for the manifests (else `npm install` rewrites it and `git status`
 *   shows it modified): npm resolves the committed manifests again in a scratch copy and must write the
 *   committed lock byte for byte;
 * - every dependency install script is declared in the root `allowScripts` (approved or denied), so npm 11
 *   prints no "install scripts not yet covered by allowScripts" warning.
 * `.ci/run` also checks that `git status --porcelain` is empty after the whole run.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { expect } from 'chai'

const repoRoot = new URL('..', import.meta.url).pathname
const rootManifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] }
const env = { ...process.env, NODE_OPTIONS: '' }

function npm(args: string[], cwd: string) {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', env, timeout: 300_000 })
  return { output: `${result.stdout}${result.stderr}`, status: result.status }
}

describe('a clean install: the lock file as committed, no install-script warnings', function () {
  this.timeout(300_000)
  let scratch: string
  before(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'clean-install-'))
  })
  after(() => rmSync(scratch, { force: true, recursive: true }))

  it('npm resolving the manifests again writes the committed package-lock.json unchanged', () => {
    for (const file of ['package.json', 'package-lock.json', ...rootManifest.workspaces.map((w) => path.join(w, 'package.json'))]) {
      mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true })
      copyFileSync(path.join(repoRoot, file), path.join(scratch, file))
    }
    const { output, status } = npm(['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], scratch)
    expect(status, output).to.equal(0)
    const committed = readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')
    const rewritten = readFileSync(path.join(scratch, 'package-lock.json'), 'utf8')
    if (rewritten !== committed) {
      const diff = spawnSync('git', ['diff', '--no-index', '--stat', '--', path.join(repoRoot, 'package-lock.json'), path.join(scratch, 'package-lock.json')], {
        encoding: 'utf8',
      })
      expect.fail(`npm install would rewrite package-lock.json (run npm install and commit it):\n${diff.stdout}`)
    }
  })

  it('every installed dependency with an install script is declared in allowScripts', () => {
    const { output, status } = npm(['install-scripts', 'ls'], repoRoot)
    expect(status, output).to.equal(0)
    expect(output.trim()).to.equal('No packages with unreviewed install scripts.')
  })
})
