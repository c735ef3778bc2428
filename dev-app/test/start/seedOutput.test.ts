/**
 * What `npm start` prints of its seed step, from the real seed script run through `runChild` as main.ts runs
 * it (a fresh data folder, the host emulator): plain text lines (no terminal escape codes, no spinner frames
 * of the database push) and no "No email adapter" warning, because the dev-app's CMS writes its mails to
 * the data folder, where a password reset's link can be read.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { expect } from 'chai'

import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js'
import { settings } from '../../src/settings.js'
import { runChild } from '../../src/start/children.js'
import { loadOrCreateCredentials } from '../../src/start/credentials.js'
import { seedDoneLine } from '../../src/start/seedDone.js'

const appRoot = settings.appRoot
const adminEmail = 'seed-output@example.com'

/** Runs `step` with everything written to this process's stdout and stderr captured instead of shown. */
async function captureOutput(step: () => Promise<void>): Promise<string> {
  let captured = ''
  const write = process.stdout.write.bind(process.stdout)
  const writeErr = process.stderr.write.bind(process.stderr)
  const capture = (chunk: string | Uint8Array) => {
    captured += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
    return true
  }
  process.stdout.write = capture as typeof process.stdout.write
  process.stderr.write = capture as typeof process.stderr.write
  try {
    await step()
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${captured.slice(-3000)}`, { cause: error })
  } finally {
    process.stdout.write = write
    process.stderr.write = writeErr
  }
  return captured
}

describe('dev-app start: the seed step as people see it', function () {
  this.timeout(180_000)
  let dataDir: string
  let emu: RunningEmulator
  let env: NodeJS.ProcessEnv
  let seedOutput: string

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'dev-app-seed-output-'))
    mkdirSync(path.join(dataDir, 'db'))
    // As main.ts: the data folder's credentials first; the emulator and the seed (through settings.ts) use its keys.
    const keys = loadOrCreateCredentials(dataDir)
    emu = await startEmulator({
      port: 0,
      dataDir: path.join(dataDir, 'host'),
      storage: { zoneName: settings.storage.zoneName, accessKey: keys.storageAccessKey, region: settings.storage.region },
      stream: { libraryId: settings.stream.libraryId, apiKey: keys.streamApiKey, readOnlyKey: keys.webhookSecret },
    })
    env = {
      ...process.env,
      // This process runs under mocha's tsx loader; the children load it themselves, as main.ts starts them.
      NODE_OPTIONS: '',
      NODE_ENV: 'development',
      DEV_APP_DATA_DIR: dataDir,
      DATABASE_URI: `file:${path.join(dataDir, 'db', 'cms.db')}`,
      EMULATOR_URL: emu.url,
      PAYLOAD_SECRET: 'seed-output-test-secret',
      DEV_APP_ADMIN_EMAIL: adminEmail,
      DEV_APP_ADMIN_PASSWORD: 'seed-output-password',
    }
    delete env.HOST_STORAGE_CDN_URL
    const args = ['--conditions=development', '--import', 'tsx', path.join(appRoot, 'src', 'start', 'seed.ts')]
    seedOutput = await captureOutput(() => runChild('seed', process.execPath, args, { cwd: appRoot, env, doneLine: seedDoneLine }))
  })

  after(async () => {
    await emu?.close()
    if (dataDir) rmSync(dataDir, { force: true, recursive: true })
  })

  it('prints plain prefixed lines: no escape codes, no spinner frames', () => {
    expect(seedOutput).to.include(`[seed] created the first admin user ${adminEmail}`)
    expect(seedOutput).to.include(`[seed] ${seedDoneLine}`)
    expect(seedOutput, 'terminal escape codes').not.to.include(String.fromCharCode(27))
    expect(seedOutput, 'carriage returns').not.to.match(/\r/)
    for (const line of seedOutput.trimEnd().split('\n')) expect(line, 'every line carries its prefix').to.match(/^\[seed\] /)
    expect(seedOutput, 'a spinner frame').not.to.match(/\[[\u2800-\u28ff]\]/)
  })

  it('shows no "No email adapter" warning; a password reset mail lands in the data folder with its link', async () => {
    expect(seedOutput).not.to.match(/No email adapter/)
    const script = path.join(appRoot, 'test', 'start', 'support', 'forgotPassword.ts')
    const output = await captureOutput(() =>
      runChild('mail', process.execPath, ['--conditions=development', '--import', 'tsx', script], { cwd: appRoot, env, doneLine: 'forgot-password: sent' }),
    )
    expect(output).not.to.match(/No email adapter/)
    const mailDir = path.join(dataDir, 'mail')
    const mails = readdirSync(mailDir)
    expect(mails).to.have.length(1)
    const mail = readFileSync(path.join(mailDir, mails[0]!), 'utf8')
    expect(mail).to.include(`To: ${adminEmail}`)
    expect(mail).to.match(/\/admin\/reset\/[0-9a-f]{20,}/)
    expect(output).to.include(`email to ${adminEmail}`)
  })

  it('the first presigned upload prints no AWS SDK Node-version notice (it did on Node 20)', async () => {
    const script = path.join(appRoot, 'test', 'start', 'support', 's3Client.ts')
    const output = await captureOutput(() =>
      runChild('s3', process.execPath, ['--conditions=development', '--import', 'tsx', script], { cwd: appRoot, env, doneLine: 's3-client: presigned' }),
    )
    expect(output).not.to.match(/NodeVersionSupportWarning|AWS SDK for JavaScript/)
  })
})
