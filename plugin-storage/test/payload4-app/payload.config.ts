/**
 * The CMS of the Payload 4 admin check: the plugin's test collections and options (cmsScenario.ts),
 * SQLite under `CMS_DATA_DIR`. `CMS_PROCESS_INPUT` carries the emulator's coordinates at run time; the
 * build (which evaluates this file without them) gets placeholders.
 */
import { join } from 'node:path'

import { sqliteAdapter } from '@payloadcms/db-sqlite'
import { buildConfig } from 'payload'
import sharp from 'sharp'

import { storageHostAdapter } from '@hosted-media/plugin-storage'

import { type CmsProcessInput, scenarioOptions } from './plugin-storage/test/support/cmsScenario.js'
import { testCollections } from './plugin-storage/test/support/startCms.js'

const placeholder = 'http://127.0.0.1:9'
const input: CmsProcessInput = process.env.CMS_PROCESS_INPUT
  ? (JSON.parse(process.env.CMS_PROCESS_INPUT) as CmsProcessInput)
  : {
      emulator: {
        storage: { accessKey: 'build', cdnUrl: placeholder, endpoint: placeholder, s3Endpoint: placeholder, zoneName: 'build' },
        stream: { apiBase: placeholder, apiKey: 'build', cdnUrl: placeholder, libraryId: 1, readOnlyKey: 'build', tusEndpoint: placeholder },
      },
      scenario: 'default',
    }
const dataDir = process.env.CMS_DATA_DIR ?? join(process.cwd(), '.data')

export default buildConfig({
  collections: testCollections(dataDir),
  db: sqliteAdapter({ client: { url: `file:${join(dataDir, 'cms.db')}` }, push: true }),
  secret: process.env.PAYLOAD_SECRET ?? 'payload4-admin-check-secret',
  sharp,
  // Payload 4 reads storage adapters from here (before this key existed, the plugin went in `plugins`).
  storage: [storageHostAdapter(scenarioOptions(input))],
  telemetry: false,
  typescript: { autoGenerate: false },
})
