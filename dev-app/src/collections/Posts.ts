import type { CollectionConfig } from 'payload'

/** Posts that use both kinds of media: a hero image and an optional video, with drafts. */
export const Posts: CollectionConfig = {
  slug: 'posts',
  access: { read: () => true },
  admin: { useAsTitle: 'title', defaultColumns: ['title', 'publishedAt', '_status'] },
  versions: { drafts: true },
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'slug', type: 'text', unique: true, index: true },
    { name: 'publishedAt', type: 'date' },
    { name: 'heroImage', type: 'upload', relationTo: 'images' },
    { name: 'video', type: 'upload', relationTo: 'videos' },
    { name: 'body', type: 'richText' },
    {
      name: 'gallery',
      type: 'array',
      fields: [
        { name: 'image', type: 'upload', relationTo: 'images', required: true },
        { name: 'caption', type: 'text' },
      ],
    },
  ],
}
