import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import {
  CLIENT_APP_LIMITS,
  CLIENT_SCOPES,
  OOB_REDIRECT_URI,
  err,
  ok,
  refusal,
  type Refusal,
  type Result,
} from '@swarm/contract';
import type { Db } from '@swarm/db';
import { hashClientSecret } from './client-apps.ts';
import { hashOAuthSecret } from './client-oauth.ts';
import { parseScopes } from './client-scopes.ts';
import type { AuthClock } from './types.ts';

/**
 * Settings → Development: a person makes an app and an access token for their own account, as
 * bot libraries expect (no consent round-trip: the person is the one allowing). The app belongs
 * to them (`client_apps.owner_id`); deleting it ends its tokens. Secrets are shown once and kept
 * as their SHA-256 only, as for apps that register themselves.
 */

/** Enough for a handful of bots; the list is shown whole on one page. */
export const DEVELOPER_APPS_MAX = 20;

export interface DeveloperAppInput {
  name: string;
  website?: string | undefined;
  scopes: readonly string[];
}

export interface DeveloperAppView {
  id: string;
  name: string;
  website: string | null;
  scopes: string[];
  clientId: string;
  createdAt: Date;
  /** When any of its tokens was last used. */
  lastUsedAt: Date | null;
}

/** What the person sees once, right after making the app. */
export interface DeveloperAppSecrets {
  app: DeveloperAppView;
  clientSecret: string;
  accessToken: string;
}

export interface DeveloperAppService {
  list(userId: string): Promise<DeveloperAppView[]>;
  create(userId: string, input: DeveloperAppInput): Promise<Result<DeveloperAppSecrets, Refusal>>;
  /** Deletes the person's app and every token of it; another person's app is not found. */
  remove(userId: string, appId: string): Promise<boolean>;
}

const random = () => encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(32)));

const invalid = (field: string, message: string) =>
  err(refusal('INVALID_REQUEST', message, { field }));

export function createDeveloperAppService(deps: { db: Db; clock: AuthClock }): DeveloperAppService {
  const { prisma } = deps.db;

  async function list(userId: string): Promise<DeveloperAppView[]> {
    const rows = await prisma.clientApp.findMany({
      where: { ownerId: userId },
      orderBy: { createdAt: 'desc' },
      take: DEVELOPER_APPS_MAX,
      include: { tokens: { select: { lastUsedAt: true }, where: { userId } } },
    });
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      website: row.website,
      scopes: parseScopes(row.scopes),
      clientId: row.clientId,
      createdAt: row.createdAt,
      lastUsedAt: row.tokens.reduce<Date | null>(
        (latest, t) => (t.lastUsedAt && (!latest || t.lastUsedAt > latest) ? t.lastUsedAt : latest),
        null,
      ),
    }));
  }

  return {
    list,

    async create(userId, input) {
      const name = (input.name ?? '').trim();
      if (name === '') return invalid('name', 'Give the application a name.');
      if (name.length > CLIENT_APP_LIMITS.nameChars) {
        return invalid(
          'name',
          `The name may have at most ${CLIENT_APP_LIMITS.nameChars} characters.`,
        );
      }
      const website = (input.website ?? '').trim();
      if (website !== '' && !/^https?:\/\/\S+$/i.test(website)) {
        return invalid('website', 'The website must be an http(s) address.');
      }
      if (website.length > CLIENT_APP_LIMITS.websiteChars) {
        return invalid('website', 'The website address is too long.');
      }
      const scopes = [...new Set(input.scopes)];
      if (scopes.length === 0) return invalid('scopes', 'Choose at least one scope.');
      const unknown = scopes.find((s) => !CLIENT_SCOPES.has(s));
      if (unknown) return invalid('scopes', `Unknown scope: ${unknown}.`);
      const count = await prisma.clientApp.count({ where: { ownerId: userId } });
      if (count >= DEVELOPER_APPS_MAX) {
        return invalid(
          'name',
          `You have ${DEVELOPER_APPS_MAX} applications already; delete one first.`,
        );
      }
      const clientSecret = random();
      const accessToken = random();
      const at = deps.clock.now();
      const row = await prisma.clientApp.create({
        data: {
          name,
          website: website || null,
          redirectUris: [OOB_REDIRECT_URI],
          scopes: scopes.join(' '),
          clientId: random(),
          secretHash: hashClientSecret(clientSecret),
          ownerId: userId,
          createdAt: at,
          tokens: {
            create: {
              tokenHash: hashOAuthSecret(accessToken),
              userId,
              scopes: scopes.join(' '),
              createdAt: at,
            },
          },
        },
      });
      return ok({
        app: {
          id: row.id,
          name: row.name,
          website: row.website,
          scopes,
          clientId: row.clientId,
          createdAt: row.createdAt,
          lastUsedAt: null,
        },
        clientSecret,
        accessToken,
      });
    },

    async remove(userId, appId) {
      const { count } = await prisma.clientApp.deleteMany({
        where: { id: appId, ownerId: userId },
      });
      return count > 0;
    },
  };
}
