import { expect } from 'chai'
import { cronToWords } from '../../src/ui/lib/cronToWords.js'

describe('ui/lib/cronToWords', () => {
  const cases: [string, string][] = [
    ['* * * * *', 'every minute'],
    ['*/15 * * * *', 'every 15 minutes'],
    ['0 * * * *', 'every hour'],
    ['30 * * * *', 'every hour at minute 30'],
    ['0 */6 * * *', 'every 6 hours'],
    ['0 2 * * *', 'every day at 02:00'],
    ['30 23 * * *', 'every day at 23:30'],
    ['0 9,17 * * *', 'every day at 09:00 and 17:00'],
    ['0 3 * * 0', 'on Sunday at 03:00'],
    ['0 3 * * 7', 'on Sunday at 03:00'],
    ['0 3 * * 1-5', 'Monday to Friday at 03:00'],
    ['0 3 * * MON-FRI', 'Monday to Friday at 03:00'],
    ['0 3 * * 1,3,5', 'on Monday, Wednesday and Friday at 03:00'],
    ['0 4 1 * *', 'on day 1 of every month at 04:00'],
    ['0 0 1 1 *', 'on day 1 of January at 00:00'],
    ['0 0 * 6-8 *', 'every day in June, July and August at 00:00'],
    ['*/10 * * * 1-5', 'every 10 minutes, Monday to Friday'],
    ['0 9-17 * * *', 'every hour, from 09:00 to 17:59'],
    ['*/30 * * * * *', 'every 30 seconds'],
    ['* * * * * *', 'every second'],
    ['15 0 2 * * *', 'every day at 02:00:15'],
    ['0 0 2 * * *', 'every day at 02:00'],
    ['@daily', 'every day at 00:00'],
    ['@hourly', 'every hour'],
    ['@weekly', 'on Sunday at 00:00'],
    ['', 'manual runs only'],
  ]
  for (const [cron, words] of cases) {
    it(`"${cron}" -> "${words}"`, () => {
      expect(cronToWords(cron)).to.equal(words)
    })
  }

  it('returns the expression itself when it cannot be read', () => {
    expect(cronToWords('61 * * * *')).to.equal('61 * * * *')
    expect(cronToWords('not a cron')).to.equal('not a cron')
    expect(cronToWords('0 0 * * FOO')).to.equal('0 0 * * FOO')
  })
})
