// Types for the generated import map (`payload generate:importmap` rewrites importMap.js, not this file).
import type { ImportMap } from 'payload'

export declare const importMap: ImportMap
