/**
 * The emulator's cache purge (account API): `POST /purge?url=` with the account `AccessKey`, the
 * emulator-only `GET /purge/log`, refusals for a wrong key, a bad URL and other methods; keys never in the log.
 */
import { expect } from 'chai'

import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js'

describe('emulator purge API', () => {
  let emu: RunningEmulator
  const lines: string[] = []
  before(async () => {
    emu = await startEmulator({ account: { apiKey: 'account-key-1' }, log: (line) => lines.push(line) })
  })
  after(() => emu?.close())

  const purge = (url: string | undefined, key = 'account-key-1') =>
    fetch(`${emu.account.apiBase}/purge${url === undefined ? '' : `?url=${encodeURIComponent(url)}&async=false`}`, {
      headers: { AccessKey: key },
      method: 'POST',
    })
  const log = async () => ((await (await fetch(`${emu.url}/purge/log`)).json()) as { purges: Array<{ url: string; purgedAt: string }> }).purges

  it('records purges in order and lists them on /purge/log', async () => {
    const a = `${emu.storage.cdnUrl}/a b.png`
    const b = `${emu.storage.cdnUrl}/a-40x40.png`
    expect((await purge(a)).status).to.equal(200)
    expect((await purge(b)).status).to.equal(200)
    const purges = await log()
    expect(purges.map((p) => p.url)).to.deep.equal([a, b])
    expect(Number.isNaN(Date.parse(purges[0]!.purgedAt))).to.equal(false)
    expect(emu.purges().map((p) => p.url)).to.deep.equal([a, b])
  })

  it('refuses a wrong or missing key (401), a missing or non-http url (400), other methods (405); records none of them', async () => {
    const before = (await log()).length
    expect((await purge(`${emu.storage.cdnUrl}/x.png`, 'wrong')).status).to.equal(401)
    expect((await fetch(`${emu.url}/purge?url=${encodeURIComponent(`${emu.storage.cdnUrl}/x.png`)}`, { method: 'POST' })).status).to.equal(401)
    expect((await purge(undefined)).status).to.equal(400)
    expect((await purge('ftp://example.com/x.png')).status).to.equal(400)
    expect((await purge('not a url')).status).to.equal(400)
    expect((await fetch(`${emu.url}/purge`, { method: 'GET' })).status).to.equal(405)
    expect((await log()).length).to.equal(before)
    expect(lines.join('\n')).not.to.include('account-key-1')
  })
})
