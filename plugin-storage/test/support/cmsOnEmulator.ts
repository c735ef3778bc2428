/**
 * @module test/support/cmsOnEmulator
 * The suite setup most plugin tests share: the emulator and a CMS on it, closed in reverse order. Kept
 * apart from startCms.ts, which the Payload 4 project's config loads too (so it imports the emulator
 * for its types only).
 */
import { startEmulator, type RunningEmulator } from 'dev-app/emulator'

import { emulatorOptions, startCms, type RunningCms } from './startCms.js'

/** Starts the emulator and a CMS on it (by default `startCms(emulatorOptions(emu))`); closes the emulator if the CMS fails to start. */
export async function startCmsOnEmulator(
  start: (emu: RunningEmulator) => Promise<RunningCms> = (emu) => startCms(emulatorOptions(emu)),
): Promise<{ emu: RunningEmulator; cms: RunningCms }> {
  const emu = await startEmulator()
  try {
    return { emu, cms: await start(emu) }
  } catch (error) {
    await emu.close()
    throw error
  }
}

/** Closes the CMS, then its emulator (either may be missing when a `before` failed). */
export async function closeCmsAndEmulator(cms: RunningCms | undefined, emu: RunningEmulator | undefined): Promise<void> {
  await cms?.close()
  await emu?.close()
}
