/**
 * Asks the dev-app's CMS for a password reset of `DEV_APP_ADMIN_EMAIL` (run as a child by seedOutput.test.ts,
 * with the same environment as the seed step): the mail it sends is what the test reads.
 */
import { getPayload } from 'payload'

import config from '../../../src/payload.config.js'

const payload = await getPayload({ config })
await payload.forgotPassword({ collection: 'users', data: { email: process.env.DEV_APP_ADMIN_EMAIL ?? '' }, disableEmail: false })
await payload.destroy()
console.log('forgot-password: sent')
process.exit(0)
