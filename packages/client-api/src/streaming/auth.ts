import { scopesAllow, type ClientTokenService, type TokenGrant } from '@swarm/auth';
import type { Connection, StreamRenderers } from './hub.ts';
import { scopesFor, type Subscription } from './streams.ts';

/**
 * Who opens a stream. The token comes, in Mastodon's order, from `Authorization: Bearer`, the
 * `access_token` query parameter, or the WebSocket's protocol (browsers' sockets can set no
 * header). No token at all is allowed for the public and tag streams, as Mastodon allows; a token
 * that is sent must be valid. Each stream then needs one of its scopes (streams.ts).
 */

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export type CallerResult =
  | { ok: true; grant: TokenGrant | null; token: string | null }
  | { ok: false; status: 401; error: string };

export type ReadResult = { ok: true } | { ok: false; status: 403 | 404; error: string };

export interface StreamingAuth {
  caller(input: {
    authorization?: string | null;
    query?: string | null;
    protocol?: string | null;
  }): Promise<CallerResult>;
  mayRead(connection: Pick<Connection, 'grant'>, subscription: Subscription): Promise<ReadResult>;
  /** Whether a token still stands (a revoked one's connections end at the next heartbeat). */
  stillValid(token: string): Promise<boolean>;
}

export function createStreamingAuth(deps: {
  clientTokens: ClientTokenService;
  renderers: Pick<StreamRenderers, 'ownsList'>;
}): StreamingAuth {
  const { clientTokens } = deps;
  return {
    async caller({ authorization, query, protocol }) {
      const header = authorization ? BEARER.exec(authorization)?.[1] : undefined;
      const token = header ?? (query || undefined) ?? (protocol || undefined);
      if (authorization && !header) {
        return { ok: false, status: 401, error: 'The access token is invalid' };
      }
      if (!token) return { ok: true, grant: null, token: null };
      const grant = await clientTokens.authenticate(token);
      if (!grant) return { ok: false, status: 401, error: 'The access token is invalid' };
      return { ok: true, grant, token };
    },
    async mayRead(connection, subscription) {
      const { grant } = connection;
      if (grant && !scopesAllow(grant.scopes, scopesFor(subscription.name))) {
        return { ok: false, status: 403, error: 'This action is outside the authorized scopes' };
      }
      if (subscription.name === 'list') {
        const owner = grant?.userId;
        const owns =
          owner && subscription.list && deps.renderers.ownsList
            ? await deps.renderers.ownsList(owner, subscription.list)
            : false;
        if (!owns) return { ok: false, status: 404, error: 'Record not found' };
      }
      return { ok: true };
    },
    async stillValid(token) {
      return (await clientTokens.authenticate(token)) !== null;
    },
  };
}
