import { expect } from 'chai'
import { formatBytes } from '../../src/ui/lib/formatBytes.js'
import { formatRelative } from '../../src/ui/lib/formatRelative.js'
import { formatUptime } from '../../src/ui/lib/formatUptime.js'
import { timeAxisLabels } from '../../src/ui/lib/timeAxisLabels.js'

describe('ui/lib/formatRelative', () => {
  const now = new Date('2026-01-10T12:00:00Z')
  const at = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString()

  it('says just now / in a few seconds close to now', () => {
    expect(formatRelative(at(-3), now)).to.equal('just now')
    expect(formatRelative(at(5), now)).to.equal('in a few seconds')
    expect(formatRelative(at(-0.3), now)).to.equal('just now')
    expect(formatRelative(at(0.4), now)).to.equal('just now')
  })

  it('picks the unit and plural', () => {
    expect(formatRelative(at(-45), now)).to.equal('45 seconds ago')
    expect(formatRelative(at(60), now)).to.equal('in 1 minute')
    expect(formatRelative(at(-5 * 60), now)).to.equal('5 minutes ago')
    expect(formatRelative(at(2 * 3600), now)).to.equal('in 2 hours')
    expect(formatRelative(at(-86400), now)).to.equal('1 day ago')
    expect(formatRelative(at(-45 * 86400), now)).to.equal('2 months ago')
    expect(formatRelative(at(800 * 86400), now)).to.equal('in 2 years')
  })

  it('returns the fallback for empty or bad input', () => {
    expect(formatRelative('', now)).to.equal('—')
    expect(formatRelative('garbage', now, 'never')).to.equal('never')
  })
})

describe('ui/lib/formatBytes', () => {
  it('formats binary units', () => {
    expect(formatBytes(0)).to.equal('0 B')
    expect(formatBytes(1023)).to.equal('1023 B')
    expect(formatBytes(1024)).to.equal('1 KiB')
    expect(formatBytes(1536)).to.equal('1.5 KiB')
    expect(formatBytes(12.34 * 1024 * 1024)).to.equal('12.3 MiB')
    expect(formatBytes(512 * 1024 * 1024)).to.equal('512 MiB')
    expect(formatBytes(10 * 1024 ** 3)).to.equal('10 GiB')
    expect(formatBytes(3 * 1024 ** 4)).to.equal('3 TiB')
  })

  it('rejects negative and non-finite sizes', () => {
    expect(formatBytes(-1)).to.equal('—')
    expect(formatBytes(Number.NaN)).to.equal('—')
  })
})

describe('ui/lib/formatUptime', () => {
  it('shows the two largest units and drops a zero second one', () => {
    expect(formatUptime(0)).to.equal('0s')
    expect(formatUptime(42.9)).to.equal('42s')
    expect(formatUptime(312)).to.equal('5m 12s')
    expect(formatUptime(3 * 3600 + 4 * 60 + 5)).to.equal('3h 4m')
    expect(formatUptime(3 * 3600 + 5)).to.equal('3h')
    expect(formatUptime(2 * 86_400 + 3 * 3600 + 59)).to.equal('2d 3h')
    expect(formatUptime(-1)).to.equal('—')
    expect(formatUptime(Number.NaN)).to.equal('—')
  })
})

describe('ui/lib/timeAxisLabels', () => {
  // Local times: the labels are in the browser's zone.
  const at = (text: string) => new Date(text)

  it('one day: the date and time at the start, the time at the end (not the same date twice, issue 38)', () => {
    expect(timeAxisLabels(at('2026-12-01T08:05:00'), at('2026-12-01T20:48:00'), 'en-US')).to.deep.equal(['12/1/2026, 08:05 AM', '08:48 PM'])
  })

  it('a few days: date and time at both ends; longer: the dates', () => {
    expect(timeAxisLabels(at('2026-12-01T23:00:00'), at('2026-12-02T01:30:00'), 'en-GB')).to.deep.equal(['01/12/2026, 23:00', '02/12/2026, 01:30'])
    expect(timeAxisLabels(at('2026-11-01T03:00:00'), at('2026-12-01T03:00:00'), 'en-US')).to.deep.equal(['11/1/2026', '12/1/2026'])
  })
})
