/**
 * @module collections/addEndpoint
 * Endpoint lists that survive the plugin applied twice.
 */
import type { Endpoint } from 'payload'

/** The endpoints plus `endpoint`, unless one with the same method and path is there already. */
export function addEndpoint(endpoints: readonly Endpoint[], endpoint: Endpoint): Endpoint[] {
  return endpoints.some((e) => e.path === endpoint.path && e.method === endpoint.method) ? [...endpoints] : [...endpoints, endpoint]
}
