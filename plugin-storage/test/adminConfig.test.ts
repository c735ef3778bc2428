/**
 * The admin parts of the config (admin/): translations merged under the plugin's namespace with the
 * host app's values winning, the thumbnail functions (token-signed CDN URLs, the host's thumbnail only
 * once encoded), and what withAdmin adds to stream and storage collections.
 */
import { expect } from 'chai'
import type { CollectionConfig, Config } from 'payload'

import { storageThumbnail, thumbnailSizeName, videoThumbnail } from '../src/admin/adminThumbnails.js'
import { VIDEO_PANEL_FIELD, withAdmin } from '../src/collections/withAdmin.js'
import { mergeTranslations, withTranslations } from '../src/admin/mergeTranslations.js'
import { resolveOptions } from '../src/options/resolveOptions.js'
import { de } from '../src/translations/de.js'
import { en } from '../src/translations/en.js'
import { translations } from '../src/translations/index.js'

describe('admin config', () => {
  it('translates every English key into German', () => {
    expect(Object.keys(de).sort()).to.deep.equal(Object.keys(en).sort())
    for (const value of Object.values(de)) expect(value).to.be.a('string').and.not.equal('')
  })

  it('merges the plugin strings under its namespace; the app keeps its own values and namespaces', () => {
    const merged = mergeTranslations(translations, {
      en: { custom: { hello: 'Hello' }, storageHost: { status: 'State' } },
      fr: { storageHost: { status: 'Statut' } },
    })
    expect(merged.en!.storageHost!.status).to.equal('State')
    expect(merged.en!.storageHost!.copy).to.equal('Copy')
    expect(merged.en!.custom!.hello).to.equal('Hello')
    expect(merged.de!.storageHost!.copy).to.equal('Kopieren')
    expect(merged.fr!.storageHost!.status).to.equal('Statut')
  })

  it("shows a video thumbnail only once the host has encoded something, on the library's pull zone in force", () => {
    const library = resolveOptions({ collections: { videos: 'stream' }, stream: { apiKey: 'k', cdnUrl: 'https://vz.example', libraryId: 1 } }).stream!
    const thumbnail = videoThumbnail(library)
    const url = 'https://vz.example/abc/thumbnail.jpg'
    // What the document stores (an older one may still hold a URL on another host): the id counts.
    const stored = { thumbnailUrl: 'http://127.0.0.1:3100/stream-cdn/1/abc/thumbnail.jpg', videoId: 'abc' }
    expect(thumbnail({ doc: { hostData: { stream: { ...stored, status: 'encoding' } } } })).to.equal(null)
    expect(thumbnail({ doc: { hostData: { stream: { ...stored, status: 'finished' } } } })).to.equal(url)
    expect(thumbnail({ doc: { hostData: { stream: { availableResolutions: '240p', status: 'encoding', videoId: 'abc' } } } })).to.equal(url)
    expect(thumbnail({ doc: {} })).to.equal(null)
  })

  it('signs an image thumbnail URL with the pull zone token key', () => {
    const options = resolveOptions({
      collections: { media: { prefix: 'uploads', target: 'storage' } },
      storage: { accessKey: 'k', cdnUrl: 'https://cdn.example', tokenAuth: { expiresIn: 600, key: 'secret-key' }, zoneName: 'z' },
    })
    const fn = storageThumbnail(options.storage!, options.collections.get('media')!, 'thumbnail')
    const url = new URL(fn({ doc: { sizes: { thumbnail: { filename: 'a b-40x40.png' } } } })!)
    expect(url.origin + url.pathname).to.equal('https://cdn.example/uploads/a%20b-40x40.png')
    expect(url.searchParams.get('token')).to.match(/^HS256-/)
    expect(Number(url.searchParams.get('expires'))).to.be.greaterThan(Date.now() / 1000)
    expect(url.toString()).not.to.contain('secret-key')
    expect(fn({ doc: { sizes: {} } })).to.equal(null)
  })

  it('picks the configured size name, else the narrowest size', () => {
    expect(thumbnailSizeName({ adminThumbnail: 'card', imageSizes: [{ name: 'card', width: 700 }] })).to.equal('card')
    expect(
      thumbnailSizeName({
        imageSizes: [
          { name: 'hero', width: 1600 },
          { name: 'small', width: 200 },
        ],
      }),
    ).to.equal('small')
    expect(thumbnailSizeName({ adminThumbnail: () => 'x', imageSizes: [{ name: 'small', width: 200 }] })).to.equal(undefined)
    expect(thumbnailSizeName({})).to.equal(undefined)
  })

  it('adds the video panel and the thumbnail to stream collections once (the plugin itself adds the playback endpoint, once: appliedTwice.test.ts), and keeps an app thumbnail function', () => {
    const options = resolveOptions({
      collections: { media: 'storage', videos: 'stream' },
      storage: { accessKey: 'k', cdnUrl: 'https://cdn.example', zoneName: 'z' },
      stream: { apiKey: 'k', cdnUrl: 'https://vz.example', libraryId: 1 },
    })
    const own = () => 'mine'
    const config = {
      collections: [
        { fields: [], slug: 'videos', upload: true },
        { fields: [], slug: 'media', upload: { adminThumbnail: own, imageSizes: [{ name: 'thumbnail', width: 40 }] } },
      ] as CollectionConfig[],
      i18n: { translations: { en: { storageHost: { copy: 'Copy it' } } } },
    } as unknown as Config
    // What plugin.ts does with the admin parts: the collection extension, then the strings.
    const admin = withAdmin()
    const applyAdmin = (c: Config): Config =>
      withTranslations(
        {
          ...c,
          collections: c.collections!.map((collection) => admin({ collection, original: collection, target: options.collections.get(collection.slug)! })),
        },
        translations,
      )
    const once = applyAdmin(config)
    const twice = applyAdmin(once)
    const videos = twice.collections!.find((c) => c.slug === 'videos')!
    expect(videos.fields.filter((f) => 'name' in f && f.name === VIDEO_PANEL_FIELD)).to.have.length(1)
    type Thumbnail = (args: { doc: Record<string, unknown> }) => null | string
    const thumbnailOf = (c: Config) => (c.collections!.find((x) => x.slug === 'videos')!.upload as { adminThumbnail: Thumbnail }).adminThumbnail
    // The plugin's thumbnail on the first pass (the library's), kept as it is on the second.
    expect(thumbnailOf(once)({ doc: { hostData: { stream: { status: 'finished', videoId: 'abc' } } } })).to.equal('https://vz.example/abc/thumbnail.jpg')
    expect(thumbnailOf(twice)).to.equal(thumbnailOf(once))
    expect((twice.collections!.find((c) => c.slug === 'media')!.upload as { adminThumbnail: unknown }).adminThumbnail).to.equal(own)
    const merged = twice.i18n!.translations as Record<string, Record<string, Record<string, string>>>
    expect(merged.en!.storageHost!.copy).to.equal('Copy it')
    expect(merged.de!.storageHost!.copy).to.equal('Kopieren')
  })
})
