import { withPayload } from '@payloadcms/next/withPayload'

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The workspace plugins ship TypeScript source.
  transpilePackages: ['@hosted-media/plugin-storage', '@hosted-media/plugin-openapi'],
  // `tsc -b` at the root typechecks everything; the build need not do it twice.
  typescript: { ignoreBuildErrors: true, tsconfigPath: 'tsconfig.next.json' },
  outputFileTracingRoot: new URL('..', import.meta.url).pathname,
  // Our TypeScript is ESM with NodeNext resolution: relative imports say `.js` and mean the `.ts` file.
  // Webpack maps that (`next build --webpack`); Turbopack has no such option yet.
  webpack: (config) => {
    config.resolve.extensionAlias = { '.js': ['.ts', '.tsx', '.js'], '.mjs': ['.mts', '.mjs'] }
    return config
  },
}

export default withPayload(nextConfig, { devBundleServerPackages: false })
