/**
 * @module test/support/freshAppTemplate
 * The files of a new Payload 3 app as `create-payload-app` writes its blank template with SQLite
 * (Next.js app router, `src/app/(payload)/…`, `src/payload.config.ts`, `src/collections/…`), plus the
 * install steps and config lines of both plugins' README "Install" sections. `create-payload-app`
 * downloads its template from GitHub, which these machines cannot reach, so the test writes the same files.
 *
 * The README snippets are kept here verbatim and the test checks each README still shows them: the
 * app is configured exactly as a reader of the README would configure it. The install commands are not
 * kept here: they are read from the READMEs and run as written (`freshAppInstall.ts`).
 */

export const storageImport = "import { storageHostPlugin } from '@hosted-media/plugin-storage'"
/** README of plugin-storage, "Install": the plugin in `plugins: [...]` (an upload collection `media`, a video one `videos`). */
export const storageCall = `    storageHostPlugin({
      collections: { media: 'storage', videos: 'stream' },
      storage: {
        zoneName: process.env.STORAGE_ZONE!,
        accessKey: process.env.STORAGE_ACCESS_KEY!,
        endpoint: process.env.STORAGE_ENDPOINT, // or region: 'de' | 'ny' | ...
        s3Endpoint: process.env.STORAGE_S3_ENDPOINT,
        cdnUrl: process.env.STORAGE_CDN_URL!,
        clientUploads: true,
      },
      stream: {
        libraryId: Number(process.env.STREAM_LIBRARY_ID),
        apiKey: process.env.STREAM_API_KEY!,
        apiBase: process.env.STREAM_API_BASE, // default https://video.bunnycdn.com
        tusEndpoint: process.env.STREAM_TUS_ENDPOINT, // default https://video.bunnycdn.com/tusupload
        cdnUrl: process.env.STREAM_CDN_URL!,
        tus: true,
        webhook: { secret: process.env.STREAM_READONLY_KEY! },
      },
    }),`

/** README of plugin-openapi, "Install". */
export const openapiImport = "import { openapiPlugin } from '@hosted-media/plugin-openapi'"
export const openapiCall = "    openapiPlugin({ info: { title: 'My CMS', version: '2.0.0' } }),"
/** Both READMEs: after adding a plugin with admin components, then the usual build. */
export const importMapStep = 'npx payload generate:importmap'

const adminPageArgs = `type Args = {
  params: Promise<{
    segments: string[]
  }>
  searchParams: Promise<{
    [key: string]: string | string[]
  }>
}

export const generateMetadata = ({ params, searchParams }: Args): Promise<Metadata> =>
  generatePageMetadata({ config, params, searchParams })
`

/** Path (relative to the app) → content. */
export function templateFiles(): Record<string, string> {
  return {
    'next.config.mjs': `import { withPayload } from '@payloadcms/next/withPayload'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const dirname = path.dirname(fileURLToPath(import.meta.url))

/** @type {import('next').NextConfig} */
const nextConfig = {
  turbopack: { root: path.resolve(dirname) },
}

export default withPayload(nextConfig, { devBundleServerPackages: false })
`,
    'tsconfig.json': `${JSON.stringify(
      {
        compilerOptions: {
          baseUrl: '.',
          lib: ['DOM', 'DOM.Iterable', 'ES2022'],
          allowJs: true,
          skipLibCheck: true,
          strict: true,
          noEmit: true,
          esModuleInterop: true,
          module: 'esnext',
          moduleResolution: 'bundler',
          resolveJsonModule: true,
          isolatedModules: true,
          jsx: 'preserve',
          incremental: true,
          plugins: [{ name: 'next' }],
          paths: { '@/*': ['./src/*'], '@payload-config': ['./src/payload.config.ts'] },
          target: 'ES2022',
        },
        include: ['next-env.d.ts', '**/*.ts', '**/*.tsx', '.next/types/**/*.ts'],
        exclude: ['node_modules'],
      },
      null,
      2,
    )}\n`,
    'src/payload.config.ts': `import { sqliteAdapter } from '@payloadcms/db-sqlite'
import { lexicalEditor } from '@payloadcms/richtext-lexical'
import path from 'path'
import { buildConfig } from 'payload'
import { fileURLToPath } from 'url'
import sharp from 'sharp'
${storageImport}
${openapiImport}

import { Users } from './collections/Users'
import { Media } from './collections/Media'
import { Videos } from './collections/Videos'

const filename = fileURLToPath(import.meta.url)
const dirname = path.dirname(filename)

export default buildConfig({
  admin: {
    user: Users.slug,
    importMap: {
      baseDir: path.resolve(dirname),
    },
  },
  collections: [Users, Media, Videos],
  editor: lexicalEditor(),
  secret: process.env.PAYLOAD_SECRET || '',
  typescript: {
    outputFile: path.resolve(dirname, 'payload-types.ts'),
  },
  db: sqliteAdapter({
    client: {
      url: process.env.DATABASE_URI || '',
    },
  }),
  sharp,
  plugins: [
${storageCall}
${openapiCall}
  ],
})
`,
    'src/collections/Users.ts': `import type { CollectionConfig } from 'payload'

export const Users: CollectionConfig = {
  slug: 'users',
  admin: {
    useAsTitle: 'email',
  },
  auth: true,
  fields: [],
}
`,
    'src/collections/Media.ts': `import type { CollectionConfig } from 'payload'

export const Media: CollectionConfig = {
  slug: 'media',
  access: {
    read: () => true,
  },
  fields: [
    {
      name: 'alt',
      type: 'text',
      required: true,
    },
  ],
  upload: true,
}
`,
    'src/collections/Videos.ts': `import type { CollectionConfig } from 'payload'

export const Videos: CollectionConfig = {
  slug: 'videos',
  fields: [
    {
      name: 'title',
      type: 'text',
    },
  ],
  upload: { mimeTypes: ['video/*'] },
}
`,
    'src/app/(payload)/custom.scss': '',
    'src/app/(payload)/layout.tsx': `/* THIS FILE WAS GENERATED AUTOMATICALLY BY PAYLOAD. */
import config from '@payload-config'
import '@payloadcms/next/css'
import type { ServerFunctionClient } from 'payload'
import { handleServerFunctions, RootLayout } from '@payloadcms/next/layouts'
import React from 'react'

import { importMap } from './admin/importMap.js'
import './custom.scss'

type Args = {
  children: React.ReactNode
}

const serverFunction: ServerFunctionClient = async function (args) {
  'use server'
  return handleServerFunctions({
    ...args,
    config,
    importMap,
  })
}

const Layout = ({ children }: Args) => (
  <RootLayout config={config} importMap={importMap} serverFunction={serverFunction}>
    {children}
  </RootLayout>
)

export default Layout
`,
    'src/app/(payload)/admin/importMap.js': 'export const importMap = {}\n',
    'src/app/(payload)/admin/[[...segments]]/page.tsx': `/* THIS FILE WAS GENERATED AUTOMATICALLY BY PAYLOAD. */
import type { Metadata } from 'next'

import config from '@payload-config'
import { RootPage, generatePageMetadata } from '@payloadcms/next/views'
import { importMap } from '../importMap'

${adminPageArgs}
const Page = ({ params, searchParams }: Args) =>
  RootPage({ config, params, searchParams, importMap })

export default Page
`,
    'src/app/(payload)/admin/[[...segments]]/not-found.tsx': `/* THIS FILE WAS GENERATED AUTOMATICALLY BY PAYLOAD. */
import type { Metadata } from 'next'

import config from '@payload-config'
import { NotFoundPage, generatePageMetadata } from '@payloadcms/next/views'
import { importMap } from '../importMap'

${adminPageArgs}
const NotFound = ({ params, searchParams }: Args) =>
  NotFoundPage({ config, params, searchParams, importMap })

export default NotFound
`,
    'src/app/(payload)/api/[...slug]/route.ts': `/* THIS FILE WAS GENERATED AUTOMATICALLY BY PAYLOAD. */
import config from '@payload-config'
import '@payloadcms/next/css'
import {
  REST_DELETE,
  REST_GET,
  REST_OPTIONS,
  REST_PATCH,
  REST_POST,
  REST_PUT,
} from '@payloadcms/next/routes'

export const GET = REST_GET(config)
export const POST = REST_POST(config)
export const DELETE = REST_DELETE(config)
export const PATCH = REST_PATCH(config)
export const PUT = REST_PUT(config)
export const OPTIONS = REST_OPTIONS(config)
`,
    'src/app/(payload)/api/graphql/route.ts': `/* THIS FILE WAS GENERATED AUTOMATICALLY BY PAYLOAD. */
import config from '@payload-config'
import { GRAPHQL_POST, REST_OPTIONS } from '@payloadcms/next/routes'

export const POST = GRAPHQL_POST(config)

export const OPTIONS = REST_OPTIONS(config)
`,
    'src/app/(payload)/api/graphql-playground/route.ts': `/* THIS FILE WAS GENERATED AUTOMATICALLY BY PAYLOAD. */
import config from '@payload-config'
import '@payloadcms/next/css'
import { GRAPHQL_PLAYGROUND_GET } from '@payloadcms/next/routes'

export const GET = GRAPHQL_PLAYGROUND_GET(config)
`,
    'src/app/(frontend)/layout.tsx': `import React from 'react'

export const metadata = {
  description: 'A blank template using Payload in a Next.js app.',
  title: 'Payload Blank Template',
}

export default async function RootLayout(props: { children: React.ReactNode }) {
  const { children } = props

  return (
    <html lang="en">
      <body>
        <main>{children}</main>
      </body>
    </html>
  )
}
`,
    'src/app/(frontend)/page.tsx': `import React from 'react'

export default function HomePage() {
  return (
    <div className="home">
      <h1>Welcome to your new project.</h1>
      <a href="/admin">Go to admin panel</a>
    </div>
  )
}
`,
  }
}
