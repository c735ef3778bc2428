import { withPayload } from '@payloadcms/next/withPayload'

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The plugin ships TypeScript source.
  transpilePackages: ['@hosted-media/plugin-storage'],
  // The repository's `tsc -b` typechecks the plugin; this throwaway app need not.
  typescript: { ignoreBuildErrors: true },
  // The plugin's ESM TypeScript says `.js` in relative imports and means the `.ts` file.
  webpack: (config) => {
    config.resolve.extensionAlias = { '.js': ['.ts', '.tsx', '.js'], '.mjs': ['.mts', '.mjs'] }
    return config
  },
}

export default withPayload(nextConfig, { devBundleServerPackages: false })
