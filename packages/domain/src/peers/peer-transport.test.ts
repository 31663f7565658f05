import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNodeHttpTransport, type PeerRequest, type PeerResponse } from './peer-transport.ts';

async function text(response: PeerResponse): Promise<string> {
  const chunks: Uint8Array[] = [];
  if (response.body instanceof Uint8Array) chunks.push(response.body);
  else if (response.body) for await (const chunk of response.body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function request(url: string, addresses: string[]): PeerRequest {
  return {
    url: new URL(url),
    method: 'GET',
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(5_000),
    maxBytes: 1024,
    addresses,
  };
}

function listen(server: http.Server | https.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

const servers: (http.Server | https.Server)[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

const echoHost: http.RequestListener = (req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(`host=${req.headers.host}`);
};

describe('node:http transport', () => {
  it('connects to the vetted address, never to what DNS says, and keeps the Host header', async () => {
    const server = http.createServer(echoHost);
    servers.push(server);
    const port = await listen(server);
    // `.invalid` never resolves (RFC 6761): only the pinned lookup can make this work.
    const response = await createNodeHttpTransport()(
      request(`http://rebind.invalid:${port}/`, ['127.0.0.1']),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('text/plain');
    expect(await text(response)).toBe(`host=rebind.invalid:${port}`);
  });

  it('fails when no vetted address is usable', async () => {
    await expect(
      createNodeHttpTransport()(request('http://rebind.invalid:1/', [])),
    ).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });

  it('drops the connection when the signal aborts', async () => {
    let arrived!: (socket: Socket) => void;
    const socketOf = new Promise<Socket>((resolve) => (arrived = resolve));
    const server = http.createServer((req) => arrived(req.socket)); // never answers
    servers.push(server);
    const port = await listen(server);
    const controller = new AbortController();
    const pending = createNodeHttpTransport()({
      ...request(`http://127.0.0.1:${port}/`, ['127.0.0.1']),
      signal: controller.signal,
    });
    const socket = await socketOf;
    const closed = new Promise((resolve) => socket.once('close', resolve));
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    await closed;
  });

  let openssl = true;
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    openssl = false;
  }

  it.skipIf(!openssl)(
    'verifies TLS against the domain name while connecting to the vetted address',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'peer-tls-'));
      try {
        execFileSync(
          'openssl',
          [
            'req',
            '-x509',
            '-newkey',
            'ec',
            '-pkeyopt',
            'ec_paramgen_curve:P-256',
            '-nodes',
            '-days',
            '1',
            '-subj',
            '/CN=peer.test',
            '-addext',
            'subjectAltName=DNS:peer.test',
            '-keyout',
            join(dir, 'key.pem'),
            '-out',
            join(dir, 'cert.pem'),
          ],
          { stdio: 'ignore' },
        );
        const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
        const server = https.createServer(
          { cert, key: readFileSync(join(dir, 'key.pem'), 'utf8') },
          echoHost,
        );
        servers.push(server);
        const port = await listen(server);
        const transport = createNodeHttpTransport({ ca: cert });

        const response = await transport(request(`https://peer.test:${port}/`, ['127.0.0.1']));
        expect(await text(response)).toBe(`host=peer.test:${port}`);
        // Same socket target, other name: the certificate does not match, so no contact.
        await expect(
          transport(request(`https://other.test:${port}/`, ['127.0.0.1'])),
        ).rejects.toMatchObject({
          code: 'ERR_TLS_CERT_ALTNAME_INVALID',
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
