/**
 * @module start/payloadCliDone
 * The closing lines of Payload's CLI steps (3.90). The CLI now and then exits 0 having done nothing and
 * printed nothing, or only its opening line (payloadcms/payload#16381, #17757): only its closing line proves
 * a step ran. Used by `npm start` (`adminBuild.ts`) and by the fresh-app end-to-end test.
 */

/** `payload generate:importmap`: it wrote the map, or found nothing new (not "Generating import map", its first line). */
export const importMapDone = /Writing import map to|skipping writing import map/
