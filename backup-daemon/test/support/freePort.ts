/**
 * @module test/support/freePort
 * A TCP port nobody listens on right now (for servers that take a port number, not port 0): the daemon's own.
 */
export { freePort } from '../../src/sources/support/freePort.js'
