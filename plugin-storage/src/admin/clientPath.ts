/**
 * @module admin/clientPath
 * Import-map path of the plugin's admin components (`<path>#<ExportName>`).
 */
export const CLIENT_PATH = '@hosted-media/plugin-storage/client'
