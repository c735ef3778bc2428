/**
 * @module test/support/cliConfig
 * A Payload config file for Payload's own CLI (`payload storage-host ...` with `PAYLOAD_CONFIG_PATH`
 * pointing here): the test CMS's config (`testConfig`) on the data folder and plugin options the test
 * passes in `STORAGE_HOST_CLI_INPUT`, so the command sees the database and files a test CMS wrote.
 */
import type { StorageHostPluginOptions } from '../../src/types.js'
import { testConfig } from './startCms.js'

export interface CliConfigInput {
  dataDir: string
  secret: string
  options: StorageHostPluginOptions
  serverURL?: string
}

const input = JSON.parse(process.env.STORAGE_HOST_CLI_INPUT ?? '{}') as CliConfigInput

export default testConfig(input.options, input.dataDir, { secret: input.secret, serverURL: input.serverURL })
