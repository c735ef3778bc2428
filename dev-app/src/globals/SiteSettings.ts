import type { GlobalConfig } from 'payload'

/** Site-wide settings: a title, a tagline and the logo image. */
export const SiteSettings: GlobalConfig = {
  slug: 'site-settings',
  access: { read: () => true },
  fields: [
    { name: 'siteTitle', type: 'text', required: true, defaultValue: 'Hosted media demo' },
    { name: 'tagline', type: 'text' },
    { name: 'logo', type: 'upload', relationTo: 'images' },
  ],
}
