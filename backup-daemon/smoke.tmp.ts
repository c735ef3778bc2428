import { createArchive } from './src/archive/createArchive.js'
import { LocalSource } from './src/sources/local.js'
import { createWriteStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
const [root, out, comp] = process.argv.slice(2)
const t = Date.now()
await pipeline(createArchive([new LocalSource('tree', root!, [], { log: (l, m) => console.log(l, m) })], { compression: (comp ?? 'tar') as 'tar', signal: new AbortController().signal }), createWriteStream(out!))
console.log('ms', Date.now() - t)
