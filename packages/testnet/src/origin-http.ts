import type { IncomingMessage, ServerResponse } from 'node:http';

// How the fake peer reads requests and writes answers.

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function clampLimit(raw: string | null, fallback: number, max: number): number {
  const n = raw === null ? fallback : Number.parseInt(raw, 10);
  return Number.isFinite(n) ? Math.max(0, Math.min(n, max)) : fallback;
}
