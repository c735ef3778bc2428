import { expect } from 'chai'
import { parse } from 'hono/utils/cookie'
import { cookieValue } from '../../src/auth/sessionCookie.js'

describe('auth/sessionCookie cookieValue (the fast path of the session lookup)', () => {
  it("agrees with Hono's cookie parser on the shapes browsers and clients send", () => {
    const cases = [
      'backup_session=abc.def-ghi_jkl',
      'a=1; backup_session=x.y.z; b=2',
      'xbackup_session=no; backup_session=yes',
      'backup_session="q.w"',
      'a=1',
      'backup_session=%41b',
      'theme=dark;backup_session=tight',
    ]
    for (const header of cases) expect(cookieValue(header, 'backup_session'), header).to.equal(parse(header, 'backup_session').backup_session)
    expect(cookieValue('', 'backup_session')).to.equal(undefined)
    expect(cookieValue('backup_session', 'backup_session')).to.equal(undefined)
    expect(cookieValue('backup_session=%E0%A4%A', 'backup_session')).to.equal('%E0%A4%A')
  })
})
