/** @module cli/hashPasswordCommand `backup-daemon hash-password`: a hash for `server.auth.password`. */
import { hashPassword } from '../auth/password.js'
import { out } from './output.js'
import { readPassword } from './readPassword.js'

export async function hashPasswordCommand(): Promise<number> {
  const password = await readPassword('Password: ')
  if (!password) {
    process.stderr.write('hash-password: empty password; type one at the prompt, or pipe it: backup-daemon hash-password < password.txt\n')
    return 1
  }
  out(await hashPassword(password))
  return 0
}
