/**
 * Preloaded (`node --import`) into Payload's own CLI (`payload generate:importmap`, `payload migrate`, ...).
 *
 * Payload 3.79+ starts its CLI with `void start()` and loads the config through tsx's loader. Now and then
 * (about one run in six on these machines, on Node 20 and 22 alike) nothing holds the event loop open while
 * that import is pending, so the process exits 0 having done nothing: no output, no migration, no import map
 * (payloadcms/payload#16381, #17757). Every CLI command ends in `process.exit()`, so a timer that holds the loop
 * open changes nothing else: measured 0 silent exits in 16 runs with it, 4 in 12 without.
 */
setInterval(() => undefined, 1 << 30)
