/**
 * @module fields/internalStorageFields
 * The upload wiring adds `_objectKey` (3.x: the client upload's own folder segment, a UUID) with
 * `admin.hidden` only. Payload 3.90's list view ignores `admin.hidden` when it picks columns and filters
 * (it checks the field's own `hidden` and `disableListColumn`), so editors saw an `_object Key` column of
 * UUIDs in the list and the relationship picker. The field stays in the API and the database (the plugin
 * reads it to find a document's files); the admin no longer offers it anywhere.
 */
import type { CollectionConfig, Field } from 'payload'

/** Fields only the storage machinery reads. */
const INTERNAL_FIELDS = new Set(['_objectKey'])

const adminOnlyHidden = { disableBulkEdit: true, disableListColumn: true, disableListFilter: true, hidden: true, readOnly: true }

/** The collection with its internal storage fields out of list columns, filters, bulk edit and the edit view. */
export function hideInternalStorageFields(collection: CollectionConfig): CollectionConfig {
  if (!collection.fields.some((f) => 'name' in f && INTERNAL_FIELDS.has(f.name))) return collection
  const fields = collection.fields.map((field): Field => {
    if (!('name' in field) || !INTERNAL_FIELDS.has(field.name)) return field
    return { ...field, admin: { ...field.admin, ...adminOnlyHidden } } as Field
  })
  return { ...collection, fields }
}
