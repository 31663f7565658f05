import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import {
  err,
  ok,
  refusal,
  type ClientAppInput,
  type ClientApplication,
  type Refusal,
  type Result,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { AuthLimits } from './types.ts';

/**
 * Apps registered through the client API (`POST /api/v1/apps`). Anyone may register one (native
 * apps do so on first start, unauthenticated), so registrations count against the caller's
 * address in the node's shared limits. The client secret is answered once and stored hashed.
 */

export const CLIENT_APP_IP_LIMIT = 'client-app-ip';
/** Registrations per address: enough for a household of apps, not for filling the table. */
export const CLIENT_APPS_PER_IP = { points: 30, windowMs: 3_600_000 } as const;

const CLIENT_ID_BYTES = 32;
const CLIENT_SECRET_BYTES = 32;

export interface ClientAppService {
  register(input: ClientAppInput, ip: string): Promise<Result<ClientApplication, Refusal>>;
}

const random = (bytes: number) =>
  encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(bytes)));

export function hashClientSecret(secret: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(sha256(new TextEncoder().encode(secret)));
}

export function createClientAppService(deps: { db: Db; limits: AuthLimits }): ClientAppService {
  const { prisma } = deps.db;
  return {
    async register(input, ip) {
      const taken = await deps.limits.take(CLIENT_APP_IP_LIMIT, ip, CLIENT_APPS_PER_IP);
      if (!taken.ok) {
        return err(
          refusal('RATE_LIMITED', 'Too many apps registered from your address; try again later.', {
            details: { retryAfterSec: taken.retryAfterSec },
          }),
        );
      }
      const clientSecret = random(CLIENT_SECRET_BYTES);
      const row = await prisma.clientApp.create({
        data: {
          name: input.client_name,
          website: input.website,
          redirectUris: input.redirect_uris,
          scopes: input.scopes.join(' '),
          clientId: random(CLIENT_ID_BYTES),
          secretHash: hashClientSecret(clientSecret),
        },
      });
      return ok({
        id: row.id,
        name: row.name,
        website: row.website,
        scopes: row.scopes.split(' '),
        redirect_uri: row.redirectUris.join('\n'),
        redirect_uris: row.redirectUris,
        client_id: row.clientId,
        client_secret: clientSecret,
      });
    },
  };
}
