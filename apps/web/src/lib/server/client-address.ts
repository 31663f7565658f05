import type { RequestEvent } from '@sveltejs/kit';

/**
 * The client's address. adapter-node's `getClientAddress()` throws when ADDRESS_HEADER is set
 * (X-Forwarded-For behind Caddy) and the request lacks that header, which is every request that
 * does not come through the proxy: compose's healthcheck, a scraper on the private network.
 * Those get the socket's peer address instead of a 500.
 */
export function clientAddressOf(
  event: Pick<RequestEvent, 'getClientAddress' | 'platform'>,
): string {
  try {
    return event.getClientAddress();
  } catch {
    const platform = event.platform as
      { req?: { socket?: { remoteAddress?: string } } } | undefined;
    return platform?.req?.socket?.remoteAddress ?? 'unknown';
  }
}
