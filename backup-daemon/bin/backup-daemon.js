#!/usr/bin/env node
// The `backup-daemon` command. The daemon is written in TypeScript and run with tsx (DESIGN.md),
// so this launcher registers the loader and hands over to the CLI.
import { register } from 'tsx/esm/api'

register()
await import('../src/cli/main.ts')
