/**
 * @module test/storages/support/hostEmulator
 * Starts dev-app's host emulator for tests. Imported through a specifier in a variable: the
 * emulator's sources belong to dev-app's TypeScript project, not to this package's (a project
 * reference would let a plain `import` type-check), so only the part used here is typed.
 */
export interface Emulator {
  url: string
  storage: { endpoint: string; zoneName: string; accessKey: string; cdnUrl: string }
  storedFilePath(zonePath: string): string | undefined
  close(): Promise<void>
}

export interface EmulatorStartOptions {
  storage?: { zoneName?: string; accessKey?: string }
  pullZone?: { tokenAuthKey?: string }
}

export async function startHostEmulator(options: EmulatorStartOptions = {}): Promise<Emulator> {
  const specifier = 'dev-app/emulator'
  const { startEmulator } = (await import(specifier)) as { startEmulator(o: EmulatorStartOptions & { port: number; host: string }): Promise<Emulator> }
  return startEmulator({ port: 0, host: '127.0.0.1', ...options })
}
