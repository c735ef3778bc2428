/**
 * Where the plugin puts its fields and hooks on a collection, relative to the app's and to
 * its upload wiring's (src/wiring/): the order a save runs them in. The plugin builds every collection in
 * one pass after the wiring (src/plugin.ts): schema and video binding before the wiring's items, CDN
 * purge after them.
 */
import { expect } from 'chai'
import type { CollectionAfterChangeHook, CollectionBeforeChangeHook, CollectionConfig, Config, Field } from 'payload'

import { storageHostPlugin } from '../src/index.js'

const appBeforeChange: CollectionBeforeChangeHook = ({ data }) => data
const appAfterChange: CollectionAfterChangeHook = ({ doc }) => doc
const appField: Field = { name: 'title', type: 'text' }

function build(): Config {
  const collection = (slug: string): CollectionConfig => ({
    slug,
    fields: [appField],
    hooks: { afterChange: [appAfterChange], beforeChange: [appBeforeChange] },
    upload: { mimeTypes: ['video/mp4'] },
  })
  return storageHostPlugin({
    collections: { media: 'storage', videos: 'stream' },
    storage: {
      accessKey: 'k',
      cdnUrl: 'https://cdn.example',
      clientUploads: true,
      purge: { apiBase: 'https://api.example', apiKey: 'a' },
      zoneName: 'z',
    },
    stream: { apiKey: 'k', cdnUrl: 'https://vz.example', libraryId: 1, tus: true, webhook: { secret: 's' } },
  })({ collections: [collection('media'), collection('videos')], secret: 'x' } as Config)
}

const names = (list: readonly unknown[] | undefined): string[] => (list ?? []).map((f) => (typeof f === 'function' && f.name) || 'anonymous')
const fieldNames = (collection: CollectionConfig): string[] => collection.fields.map((f) => ('name' in f ? f.name : f.type))

describe('the plugin wires each collection in order', () => {
  const config = build()
  const videos = config.collections!.find((c) => c.slug === 'videos')!
  const media = config.collections!.find((c) => c.slug === 'media')!

  it("binds a video after the app's beforeChange hooks and before the upload wiring's", () => {
    const hooks = videos.hooks!.beforeChange!
    expect(hooks[0]).to.equal(appBeforeChange)
    expect(names(hooks)[1]).to.equal('bindVideoToken')
    expect(names(hooks).slice(2), "the upload wiring's beforeChange hook follows").to.deep.equal(['keepUploadedFile'])
    expect(names(hooks).slice(2)).not.to.include('bindVideoToken')
  })

  it("adds hostData after the app's fields and before the upload wiring's, behind the video panel", () => {
    const fields = fieldNames(videos)
    expect(fields.slice(0, 3)).to.deep.equal(['hostVideoPanel', 'title', 'hostData'])
    expect(fields.slice(3), "the upload wiring's fields").to.include.members(['url'])
  })

  it('purges the CDN after the upload hooks wrote or deleted the file (they come first)', () => {
    const afterChange = media.hooks!.afterChange!
    expect(afterChange[0]).to.equal(appAfterChange)
    expect(afterChange).to.have.length(3)
    expect(names(afterChange).slice(1)).to.deep.equal(['writeUploadedFiles', 'afterChange'])
    expect(names(media.hooks!.afterDelete)).to.have.length(2)
    expect(names(media.hooks!.afterDelete)).to.deep.equal(['deleteStoredFiles', 'afterDelete'])
  })

  it('remembers, verifies and spends receipts ahead of the app on every targeted collection', () => {
    for (const collection of [media, videos]) {
      expect(names(collection.hooks!.beforeOperation)).to.deep.equal(['rememberOperation', 'verifyUploadReferenceHook', 'beforeOperation'])
      expect(names(collection.hooks!.afterOperation)).to.deep.equal(['afterOperation'])
      // The wiring's clean-up of a refused client upload, then the receipt's release.
      expect(names(collection.hooks!.afterError)).to.deep.equal(['discardRefusedUpload', 'afterError'])
    }
  })

  it('leaves upload.mimeTypes of a stream collection to the plugin, and keeps them on a storage collection', () => {
    expect((videos.upload as { mimeTypes?: string[] }).mimeTypes).to.equal(undefined)
    expect((media.upload as { mimeTypes?: string[] }).mimeTypes).to.deep.equal(['video/mp4'])
  })
})
