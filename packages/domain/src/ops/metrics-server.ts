import { createServer, type Server } from 'node:http';
import type { NodeMetrics } from './metrics.ts';

/**
 * The optional second port (METRICS_PORT on METRICS_HOST) for scrapers that cannot send a
 * token: `GET /metrics` only, no authentication, so bind it to a private address.
 */
export function createMetricsServer(metrics: Pick<NodeMetrics, 'text' | 'contentType'>): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Only GET /metrics is served here.', code: 'NOT_FOUND' }));
      return;
    }
    metrics.text().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'Metrics could not be collected.', code: 'INTERNAL' }));
      },
    );
  });
}
