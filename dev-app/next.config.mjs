import { withPayload } from '@payloadcms/next/withPayload'

/** @type {import('next').NextConfig} */
const nextConfig = {
  // The dev-app runs the plugins from their workspace sources (`exports` → `./src/*.ts`: an edit shows up with no
  // build step). Published, they are built JavaScript and an app needs neither this nor the webpack settings below
  // (test/fresh-app.e2e.test.ts builds one with Turbopack).
  transpilePackages: ['@hosted-media/plugin-storage', '@hosted-media/plugin-openapi'],
  // `tsc -b` at the root typechecks everything; the build need not do it twice.
  typescript: { ignoreBuildErrors: true, tsconfigPath: 'tsconfig.next.json' },
  outputFileTracingRoot: new URL('..', import.meta.url).pathname,
  // Server code keeps its class names: Payload's error answers name the error's class (`ValidationError`, not
  // a minified `j`), and its `loggingLevels` are keyed by those names.
  experimental: { serverMinification: false },
  // Our TypeScript (the dev-app's own files as well as the plugins' sources) is ESM with NodeNext resolution:
  // relative imports say `.js` and mean the `.ts` file. Webpack maps that (`next build --webpack`); Turbopack has
  // no such option yet.
  webpack: (config) => {
    config.resolve.extensionAlias = { '.js': ['.ts', '.tsx', '.js'], '.mjs': ['.mts', '.mjs'] }
    return config
  },
}

export default withPayload(nextConfig, { devBundleServerPackages: false })
