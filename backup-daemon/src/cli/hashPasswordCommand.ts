/** @module cli/hashPasswordCommand `backup-daemon hash-password`: a hash for `server.auth.password`. */
import { hashPassword } from '../auth/password.js'
import { out } from './output.js'
import { readPassword } from './readPassword.js'

export async function hashPasswordCommand(): Promise<number> {
  const password = await readPassword('Password: ')
  if (!password) {
    process.stderr.write('empty password\n')
    return 1
  }
  out(await hashPassword(password))
  return 0
}
