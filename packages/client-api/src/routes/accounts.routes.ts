import { Hono } from 'hono';
import { baseUrlForDomain } from '@swarm/contract';
import { requireToken, type BearerEnv } from '../bearer.ts';
import { credentialAccount } from '../entities/account.ts';
import { apiError } from '../errors.ts';

/** `GET /api/v1/accounts/verify_credentials`: the token's person, as apps show them after log-in. */
export function accountRoutes() {
  const app = new Hono<BearerEnv>();
  app.get(
    '/api/v1/accounts/verify_credentials',
    requireToken(['read:accounts', 'profile'], { user: true }),
    async (c) => {
      const { deps } = c.var;
      const person = await deps.usage.person(c.var.grant.userId!);
      if (!person) return apiError(c, 401, 'The access token is invalid');
      return c.json(credentialAccount(person, baseUrlForDomain(deps.node.config.domain)));
    },
  );
  return app;
}
