/**
 * The packages stay ready for `npm publish`: a scoped package is published as restricted unless its manifest
 * says otherwise (npm then refuses it on a free organisation), so each public workspace package declares
 * `publishConfig.access: public`, ships its build (npm adds the README), and names this repository and its folder.
 * (What the packed manifest contains is checked on the real tarballs by fresh-app.e2e.test.ts.)
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'

import { expect } from 'chai'

const repoRoot = new URL('..', import.meta.url).pathname
const workspaces = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces

interface Manifest {
  name: string
  private?: boolean
  files?: string[]
  publishConfig?: { access?: string }
  repository?: { directory?: string; url?: string }
}

describe('workspace packages are ready for npm publish', () => {
  const published = workspaces
    .map((folder) => ({ folder, manifest: JSON.parse(readFileSync(path.join(repoRoot, folder, 'package.json'), 'utf8')) as Manifest }))
    .filter(({ manifest }) => !manifest.private)

  it('publishes the two plugins and the daemon', () => {
    expect(published.map((p) => p.manifest.name)).to.have.members([
      '@hosted-media/plugin-storage',
      '@hosted-media/plugin-openapi',
      '@hosted-media/backup-daemon',
    ])
  })

  it('each scoped package is public, ships its build, and names this repository and its folder', () => {
    for (const { folder, manifest } of published) {
      expect(manifest.publishConfig?.access, `${manifest.name}: publishConfig.access`).to.equal('public')
      expect(
        manifest.files?.some((entry) => /^dist\/?$/.test(entry)),
        `${manifest.name}: files has dist`,
      ).to.equal(true)
      expect(manifest.repository?.directory, `${manifest.name}: repository.directory`).to.equal(folder)
    }
    expect(new Set(published.map((p) => p.manifest.repository?.url)).size, 'one repository URL').to.equal(1)
  })
})
