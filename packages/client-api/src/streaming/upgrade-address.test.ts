import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { upgradeAddress } from './streaming.ts';

// A WebSocket upgrade's client address, read as the web app's adapter reads a request's.

const request = (headers: Record<string, string>) =>
  ({ socket: { remoteAddress: '10.0.0.2' }, headers }) as unknown as IncomingMessage;

describe('upgradeAddress', () => {
  it('is the socket peer without a proxy header, or when the header is missing', () => {
    expect(upgradeAddress(request({ 'x-forwarded-for': '203.0.113.9' }))).toBe('10.0.0.2');
    expect(upgradeAddress(request({}), { header: 'X-Forwarded-For' })).toBe('10.0.0.2');
  });

  it('counts X-Forwarded-For entries from the right, one proxy by default', () => {
    const forwarded = request({ 'x-forwarded-for': '198.51.100.1, 203.0.113.9, 10.0.0.1' });
    expect(upgradeAddress(forwarded, { header: 'X-Forwarded-For' })).toBe('10.0.0.1');
    expect(upgradeAddress(forwarded, { header: 'X-Forwarded-For', depth: 2 })).toBe('203.0.113.9');
    // More proxies said than entries sent: the leftmost entry.
    expect(upgradeAddress(forwarded, { header: 'X-Forwarded-For', depth: 9 })).toBe('198.51.100.1');
  });

  it('takes another header as it is', () => {
    expect(upgradeAddress(request({ 'x-real-ip': ' 203.0.113.7 ' }), { header: 'X-Real-IP' })).toBe(
      '203.0.113.7',
    );
  });
});
