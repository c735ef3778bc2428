/**
 * `next start` runs in production, where the SQLite adapter never pushes the schema: this creates the
 * tables (and nothing else) first, like a migration would. Run with the project's Node and tsx.
 */
import { getPayload } from 'payload'

import config from './payload.config.js'

const payload = await getPayload({ config })
await payload.destroy()
process.stdout.write('schema ready\n')
