/**
 * @module start/seed
 * Runs once per `npm start`, before the admin panel: brings the database schema up to date (Payload's
 * development push, for the embedded SQLite file) and, on first start, creates the first admin user
 * and sample content. Separate process, because `next start` runs in production mode, which never
 * pushes the schema.
 */
import sharp from 'sharp'
import { getPayload } from 'payload'
import config from '../payload.config.js'
import { seedDoneLine } from './seedDone.js'

const adminEmail = process.env.DEV_APP_ADMIN_EMAIL ?? ''
const adminPassword = process.env.DEV_APP_ADMIN_PASSWORD ?? ''

const payload = await getPayload({ config })

async function isEmpty(collection: 'users' | 'images' | 'posts'): Promise<boolean> {
  const { totalDocs } = await payload.count({ collection, overrideAccess: true })
  return totalDocs === 0
}

/** A 1200×800 gradient PNG, so the sample has an image without shipping a binary. */
async function sampleImage(): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="800">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#0e7490"/><stop offset="1" stop-color="#f59e0b"/></linearGradient></defs>
    <rect width="1200" height="800" fill="url(#g)"/></svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}

const paragraph = (text: string) => ({
  type: 'paragraph',
  version: 1,
  direction: 'ltr' as const,
  format: '' as const,
  indent: 0,
  textFormat: 0,
  textStyle: '',
  children: [{ type: 'text', version: 1, text, detail: 0, format: 0, mode: 'normal', style: '' }],
})

if (await isEmpty('users')) {
  await payload.create({ collection: 'users', data: { email: adminEmail, password: adminPassword, name: 'Admin' } })
  console.log(`created the first admin user ${adminEmail}`)
}

if (await isEmpty('images')) {
  const data = await sampleImage()
  const image = await payload.create({
    collection: 'images',
    data: { alt: 'A teal-to-amber gradient' },
    file: { data, mimetype: 'image/png', name: 'sample-gradient.png', size: data.length },
  })
  await payload.updateGlobal({
    slug: 'site-settings',
    data: { siteTitle: 'Hosted media demo', tagline: 'Images on the storage host, videos on the streaming host', logo: image.id },
  })
  if (await isEmpty('posts')) {
    await payload.create({
      collection: 'posts',
      data: {
        title: 'Welcome to the hosted-media demo',
        slug: 'welcome',
        publishedAt: new Date().toISOString(),
        heroImage: image.id,
        _status: 'published',
        body: {
          root: {
            type: 'root',
            version: 1,
            direction: 'ltr',
            format: '',
            indent: 0,
            children: [
              paragraph('This post uses an image stored on the storage host. Upload a video in the admin panel to see TUS uploads and encoding callbacks.'),
            ],
          },
        },
      },
    })
  }
  console.log('created sample content')
}

await payload.destroy()
// main.ts waits for this line: a seed that exits 0 without it did not run (see main.ts).
console.log(seedDoneLine)
process.exit(0)
