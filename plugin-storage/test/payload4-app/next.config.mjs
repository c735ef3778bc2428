import { createRequire } from 'node:module'
import { join } from 'node:path'

import { withPayload } from '@payloadcms/next/withPayload'

/**
 * Payload 4.0.0-canary.36 reads a client upload back into a temp file and detects its type with
 * file-type's `fileTypeFromFile`, which loads `strtok3` through a runtime `import(specifier)`: webpack
 * turns that into an empty context ("Cannot find module"), and every save of a client upload to a
 * collection with `mimeTypes` fails with "Could not read uploaded file for type detection." Loaded by
 * Node instead of bundled, it works. `serverExternalPackages` cannot do it: the core's file-type is its
 * own nested copy (22), not the app's (21), so each import of `file-type` is left to Node as the copy
 * its importer resolves (plugin-storage README, "Payload 3 and 4").
 */
function fileTypeByNode({ context, request }, callback) {
  if (request !== 'file-type' || !context) return callback()
  return callback(null, `import ${createRequire(join(context, 'noop.js')).resolve('file-type')}`)
}

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The plugin ships TypeScript source.
  transpilePackages: ['@hosted-media/plugin-storage'],
  // The repository's `tsc -b` typechecks the plugin; this throwaway app need not.
  typescript: { ignoreBuildErrors: true },
  // The plugin's ESM TypeScript says `.js` in relative imports and means the `.ts` file.
  webpack: (config, { isServer }) => {
    config.resolve.extensionAlias = { '.js': ['.ts', '.tsx', '.js'], '.mjs': ['.mts', '.mjs'] }
    if (isServer) config.externals = [fileTypeByNode, ...(Array.isArray(config.externals) ? config.externals : [config.externals].filter(Boolean))]
    return config
  },
}

export default withPayload(nextConfig, { devBundleServerPackages: false })
