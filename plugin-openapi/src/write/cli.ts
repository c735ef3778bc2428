/**
 * @module plugin-openapi/write/cli
 * `payload-openapi --config <payload.config.ts> --out <openapi.json|yaml>`: writes the description for codegen in CI.
 */
import { parseArgs } from 'node:util'

import { writeOpenAPIDocument } from './writeOpenAPIDocument.js'

/** Runs the command line; returns the exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { config: { type: 'string', short: 'c' }, out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
  })
  const configPath = values.config ?? process.env.PAYLOAD_CONFIG_PATH
  if (values.help || !configPath || !values.out) {
    console.error('usage: payload-openapi --config <payload.config.ts> --out <openapi.json|openapi.yaml>')
    return values.help ? 0 : 2
  }
  const doc = await writeOpenAPIDocument({ configPath, out: values.out })
  const count = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0)
  console.log(`wrote ${values.out}: ${count} operations`)
  return 0
}
