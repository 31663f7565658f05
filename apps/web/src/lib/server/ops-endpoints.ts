import { errorBody, OPS_PATHS } from '@swarm/contract';
import type { NodeContext } from '@swarm/domain';

/** Answers the web app's own `/livez`, `/readyz` and `/metrics`, or undefined for other paths. */
export async function opsResponse(
  node: NodeContext,
  request: Request,
  pathname: string,
): Promise<Response | undefined> {
  const { livez, readyz, metrics } = OPS_PATHS.web;
  if (pathname !== livez && pathname !== readyz && pathname !== metrics) return undefined;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return Response.json(
      errorBody('NOT_FOUND', `No such endpoint: ${request.method} ${pathname}`),
      {
        status: 404,
      },
    );
  }
  const noStore = { 'cache-control': 'no-store' };
  if (pathname === livez) return Response.json({ status: 'ok' }, { headers: noStore });
  if (pathname === readyz) {
    const readiness = await node.health.readiness();
    return Response.json(readiness, {
      status: readiness.status === 'ready' ? 200 : 503,
      headers: noStore,
    });
  }
  // The admin API's bearer tokens, as on the gateway (`require-admin.ts`).
  const token = /^Bearer +(\S+) *$/i.exec(request.headers.get('authorization') ?? '')?.[1];
  const principal = await node.adminTokens.verifyBearer(token);
  if (!principal.ok) {
    return Response.json(
      errorBody(
        'UNAUTHORIZED',
        token
          ? 'The admin token is not valid.'
          : 'This endpoint needs an admin token: Authorization: Bearer <token>.',
      ),
      {
        status: 401,
        headers: {
          'www-authenticate': token
            ? 'Bearer realm="swarm-admin", error="invalid_token"'
            : 'Bearer realm="swarm-admin"',
        },
      },
    );
  }
  return new Response(await node.metrics.text(), {
    headers: { 'content-type': node.metrics.contentType, ...noStore },
  });
}
