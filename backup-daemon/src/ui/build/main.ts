/**
 * @module ui/build/main
 * `npm run build:ui -w backup-daemon`: rebuilds the committed UI assets and prints the gzipped size.
 */
import { buildUi, committedAssetsDir } from './buildUi.js'

const { files, gzipBytes } = await buildUi({ outDir: committedAssetsDir })
console.log(`UI built into ${committedAssetsDir}: ${files.join(', ')}`)
console.log(`gzipped (index.html + script + stylesheet): ${(gzipBytes / 1024).toFixed(1)} KiB`)
