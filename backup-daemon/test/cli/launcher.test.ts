import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const bin = fileURLToPath(new URL('../../bin/backup-daemon.js', import.meta.url))
const cacheDir = new URL('../../node_modules/.cache/backup-daemon/', import.meta.url)

function cli(args: string[], env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...env } })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe('bin/backup-daemon.js launcher (esbuild bundle, tsx fallback)', function () {
  this.timeout(60_000)

  it('runs the bundled CLI and the tsx fallback alike; files found from import.meta.url still resolve', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
    const bundled = cli(['--version'])
    const tsx = cli(['--version'], { BACKUP_DAEMON_TSX: '1' })
    expect(bundled).to.include({ code: 0, stdout: `${pkg.version}\n` })
    expect(tsx).to.include({ code: 0, stdout: `${pkg.version}\n` })
  })

  it('keeps heavy dependencies out of the entry chunk (they load only with the commands and jobs that use them)', async () => {
    expect(cli(['--help']).code).to.equal(0)
    const current = JSON.parse(await readFile(new URL('current.json', cacheDir), 'utf8')) as { build: string }
    const entry = await readFile(new URL(`${current.build}/main.mjs`, cacheDir), 'utf8')
    const imports = [...entry.matchAll(/^import\b[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1])
    expect(imports).to.not.be.empty
    for (const heavy of ['@aws-sdk/', 'mongodb', 'age-encryption', 'hono', 'nodemailer'])
      expect(
        imports.some((i) => i?.startsWith(heavy)),
        heavy,
      ).to.equal(false)
    // And the chunks that do import them exist (the SDK is in the bundle, just not loaded up front).
    expect(entry).to.match(/import\("\.\/runOnce-[A-Z0-9]+\.mjs"\)/)
  })

  it("builds the tar worker's entry with the CLI, and the source tree's lookup finds that file", async () => {
    expect(cli(['--help']).code).to.equal(0)
    const current = JSON.parse(await readFile(new URL('current.json', cacheDir), 'utf8')) as { build: string }
    const worker = await readFile(new URL(`${current.build}/tar-worker.mjs`, cacheDir), 'utf8')
    expect(worker).to.include('// src/sources/local/tarWorker/tarWorkerMain.ts')
    const { tarWorkerUrl } = await import('../../src/sources/local/tarWorker/tarWorkerUrl.js')
    expect((await tarWorkerUrl())?.href).to.equal(new URL(`${current.build}/tar-worker.mjs`, cacheDir).href)
  })
})
