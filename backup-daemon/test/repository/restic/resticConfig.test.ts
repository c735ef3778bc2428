/**
 * @module test/repository/restic/resticConfig
 * The `type: restic` storage entry in the config: parsed with `env:` secrets, its password and backend
 * variables never shown by `GET /jobs/{name}/config` (`redactJob`), and refused as an object store.
 */
import { expect } from 'chai'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { loadConfig } from '../../../src/config/loadConfig.js'
import { redactJob } from '../../../src/engine/redactJob.js'
import { createStorage } from '../../../src/storages/all.js'
import { resticStorage } from '../../../src/storages/restic/index.js'
import { tempDir } from '../../engine/helpers.js'

describe('storages/restic: the config entry', () => {
  it('takes env: secrets, resolves passwordFile and a folder repository against the config file folder, and redacts the password and the backend variables', async () => {
    const tmp = await tempDir()
    try {
      const file = join(tmp.dir, 'backup-daemon.yaml')
      await writeFile(
        file,
        `dataDir: ./data
jobs:
  - name: site
    sources: [{ type: local, name: files, path: ./src }]
    storages:
      - type: restic
        name: s3
        repository: s3:https://user:pw-in-url@s3.example.com/bucket
        password: env:T_RESTIC_PASSWORD
        env: { AWS_ACCESS_KEY_ID: key-id-value, AWS_SECRET_ACCESS_KEY: env:T_AWS_SECRET }
        extraParams: ["--cacert", "./cert.pem"]
      - { type: restic, name: disk, repository: ./repo, passwordFile: ./pass.txt }
      - { type: restic, name: local, repository: "local:../elsewhere/repo", password: x }
      - { type: restic, name: sftp, repository: "sftp:backup@host:relative/repo", password: x }
      - { type: restic, name: absolute, repository: /srv/restic, password: x }
`,
      )
      const config = await loadConfig(file, { T_RESTIC_PASSWORD: 'the-repo-password', T_AWS_SECRET: 'the-aws-secret' })
      const [s3, disk, local, sftp, absolute] = config.jobs[0]!.storages as Record<string, unknown>[]
      expect(s3).to.include({ password: 'the-repo-password' })
      expect(s3!.env).to.deep.equal({ AWS_ACCESS_KEY_ID: 'key-id-value', AWS_SECRET_ACCESS_KEY: 'the-aws-secret' })
      expect(disk!.passwordFile).to.equal(join(tmp.dir, 'pass.txt'))
      // Folder repositories resolve against the config file's folder, not the daemon's working folder.
      expect(disk!.repository).to.equal(join(tmp.dir, 'repo'))
      expect(local!.repository).to.equal(`local:${join(tmp.dir, '..', 'elsewhere', 'repo')}`)
      expect(sftp!.repository).to.equal('sftp:backup@host:relative/repo')
      expect(absolute!.repository).to.equal('/srv/restic')
      expect(s3!.repository).to.equal('s3:https://user:pw-in-url@s3.example.com/bucket')
      const shown = JSON.stringify(redactJob(config.jobs[0]!))
      for (const secret of ['the-repo-password', 'the-aws-secret', 'key-id-value', 'pw-in-url']) expect(shown).to.not.include(secret)
      expect(redactJob(config.jobs[0]!).storages[0]).to.include({ type: 'restic', name: 's3' })
      expect(redactJob(config.jobs[0]!).storages[0]!.envNames).to.deep.equal(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'])
      expect(() => createStorage(config.jobs[0]!.storages[1]!)).to.throw(/is a restic repository, not an object store/)
    } finally {
      await tmp.remove()
    }
  })

  it('needs a repository and declares its secrets', () => {
    expect(resticStorage.configSchema.safeParse({ type: 'restic', name: 'r', password: 'x' }).success).to.equal(false)
    expect(resticStorage.configSchema.safeParse({ type: 'restic', name: 'r', repository: '/srv/restic', password: 'x' }).success).to.equal(true)
    expect(resticStorage.secretKeys).to.deep.equal(['password', 'env'])
  })
})
