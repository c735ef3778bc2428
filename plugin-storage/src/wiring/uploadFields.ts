/**
 * @module wiring/uploadFields
 * The fields a hosted upload collection needs besides Payload's own upload fields: `prefix` (the
 * document's folder on the host), `_objectKey` (Payload 3: a client upload's own folder segment) and
 * `url` (with each image size's `url`) computed when the document is read. They are added whatever
 * `disabled` says, so the database schema never depends on the switch.
 */
import type { CollectionConfig, Field, FieldHook, ImageSize } from 'payload'

import type { HostAdapter } from './hostAdapter.js'
import { documentFolder, objectKey } from '../keys/objectKeys.js'

type Doc = { filename?: unknown; prefix?: unknown; _objectKey?: unknown; sizes?: Record<string, { filename?: unknown } | null | undefined> | null }

const hidden = { hidden: true, readOnly: true }

const named = (fields: readonly Field[], name: string): Field | undefined => fields.find((f) => 'name' in f && f.name === name)
const without = (fields: readonly Field[], name: string): Field[] => fields.filter((f) => !('name' in f && f.name === name))

/**
 * `url` of the original (no `size`) or of an image size, as readers see it: with public files the host's
 * URL from the current options, else Payload's file route (its own hook runs first), with the folder as
 * `?prefix=` so the route finds the right document when names repeat across folders.
 */
function readUrl(adapter: HostAdapter | undefined, collectionPrefix: string, size?: ImageSize): FieldHook {
  return function readStorageUrl({ data, req, value }) {
    const doc = (data ?? {}) as Doc
    const filename = size ? doc.sizes?.[size.name]?.filename : doc.filename
    if (typeof filename !== 'string' || !filename) return value
    const folder = documentFolder(doc)
    const publicUrl = adapter?.publicUrl?.(objectKey(collectionPrefix, folder, filename), req)
    if (publicUrl !== undefined) return publicUrl
    if (typeof value === 'string' && value && typeof doc.prefix === 'string' && doc.prefix) {
      return `${value}${value.includes('?') ? '&' : '?'}prefix=${encodeURIComponent(doc.prefix)}`
    }
    return value
  }
}

/** The collection's fields with the hosted-upload fields merged in (an app's own `url`/`prefix` keeps its settings). */
export function hostedUploadFields(collection: CollectionConfig, collectionPrefix: string, adapter?: HostAdapter): Field[] {
  let fields = [...collection.fields]
  const urlField = named(fields, 'url') as (Field & { hooks?: { afterRead?: FieldHook[] } }) | undefined
  fields = without(fields, 'url')
  fields.push({
    name: 'url',
    type: 'text',
    label: 'URL',
    ...urlField,
    admin: { ...hidden, ...(urlField && 'admin' in urlField ? urlField.admin : {}) },
    hooks: { ...urlField?.hooks, afterRead: [readUrl(adapter, collectionPrefix), ...(urlField?.hooks?.afterRead ?? [])] },
  } as Field)

  const imageSizes = typeof collection.upload === 'object' ? collection.upload.imageSizes : undefined
  if (imageSizes?.length) {
    const sizesField = named(fields, 'sizes') as (Field & { fields?: Field[] }) | undefined
    fields = without(fields, 'sizes')
    fields.push({
      ...sizesField,
      name: 'sizes',
      type: 'group',
      admin: { hidden: true },
      fields: imageSizes.map((size): Field => {
        const sizeField = sizesField?.fields && (named(sizesField.fields, size.name) as (Field & { fields?: Field[] }) | undefined)
        const sizeUrl = sizeField?.fields && (named(sizeField.fields, 'url') as (Field & { hooks?: { afterRead?: FieldHook[] } }) | undefined)
        return {
          ...sizeField,
          name: size.name,
          type: 'group',
          fields: [
            ...(sizeField?.fields ? without(sizeField.fields, 'url') : []),
            {
              ...sizeUrl,
              name: 'url',
              type: 'text',
              admin: hidden,
              label: 'URL',
              hooks: { ...sizeUrl?.hooks, afterRead: [readUrl(adapter, collectionPrefix, size), ...(sizeUrl?.hooks?.afterRead ?? [])] },
            } as Field,
          ],
        } as Field
      }),
    } as Field)
  }

  const prefixField = named(fields, 'prefix')
  fields = without(fields, 'prefix')
  fields.push({ name: 'prefix', type: 'text', admin: hidden, defaultValue: collectionPrefix, ...prefixField } as Field)
  fields = without(fields, '_objectKey')
  fields.push({ name: '_objectKey', type: 'text', admin: hidden })
  return fields
}
