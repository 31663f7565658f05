import type { RequestHandler } from './$types';

/**
 * The web app manifest: what makes the node's pages installable on a phone's home screen (with
 * the service worker, `src/service-worker.ts`, which shows push notifications). Named after the
 * node, since each node is its own app to the people who use it.
 */
export const GET: RequestHandler = ({ locals }) => {
  const name = locals.node.config.nodeName || locals.node.config.domain;
  const manifest = {
    name,
    short_name: name.length > 12 ? 'Swarm' : name,
    description: locals.node.config.nodeDescription || `A swarm node: ${locals.node.config.domain}`,
    id: '/',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: '#4338ca',
    icons: [
      { src: '/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any maskable' },
      { src: '/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any maskable' },
    ],
  };
  return new Response(JSON.stringify(manifest), {
    headers: {
      'content-type': 'application/manifest+json',
      'cache-control': 'public, max-age=3600',
    },
  });
};
