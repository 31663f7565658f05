import {
  authServicesOf,
  toSessionUser,
  type AuthServices,
  type SessionUser,
  type ValidatedSession,
} from '@swarm/auth';
import {
  exportPublicKeyPem,
  generateSigningKeyPair,
  isRefusalError,
  publicKeyToDidKey,
  signUserAction,
} from '@swarm/contract';
import type { NodeContext } from '@swarm/domain';

// Test helpers for calling a node's tRPC procedures through the front door (the api package's
// `createCaller`, passed in: the harness does not import the apps it tests), with sessions
// shaped as the web hook hands them over. Shared by the api, testnet and web tests.

/** What the api's `createCaller` takes: the tRPC context the web app's hook builds. */
export interface CallerContext {
  node: NodeContext;
  auth: AuthServices;
  session: ValidatedSession | null;
  clientIp: string;
}

/** The api's `createCaller` (or anything with its shape). */
export type CallerFactory<Caller> = (context: CallerContext) => Caller;

/** The session fields of a user row: auth's own mapping, under the harness's name. */
export const sessionUserOf = toSessionUser;

/** The session user of an existing local user. */
export async function sessionUserByHandle(node: NodeContext, handle: string) {
  return sessionUserOf(await node.db.prisma.user.findUniqueOrThrow({ where: { handle } }));
}

/** The caller helpers bound to the api's `createCaller`. */
export function apiCallers<Caller>(createCaller: CallerFactory<Caller>) {
  return {
    /**
     * A caller on `node` signed in as `user` (anonymous for null): a valid hour-long session on
     * the node's clock. `auth` defaults to the node's auth services (see `authServicesOf`).
     */
    signedInCaller(
      node: NodeContext,
      user: SessionUser | null,
      options: { auth?: AuthServices; clientIp?: string } = {},
    ): Caller {
      return createCaller({
        node,
        auth: options.auth ?? authServicesOf(node),
        session: user
          ? {
              sessionId: 'test',
              expiresAt: new Date(node.clock.now().getTime() + 3_600_000),
              refreshed: false,
              user,
            }
          : null,
        clientIp: options.clientIp ?? '127.0.0.1',
      });
    },

    /** A caller as the browser holding `token` (or none): the session validated as the hook does. */
    async tokenCaller(
      node: NodeContext,
      auth: AuthServices,
      token?: string,
      clientIp = '127.0.0.1',
    ): Promise<Caller> {
      const session = token ? await auth.sessions.validate(token) : null;
      return createCaller({ node, auth, session, clientIp });
    },
  };
}

/** Signs up each handle (display name capitalised); their session tokens and users by handle. */
export async function signUpUsers(auth: AuthServices, handles: string[], password: string) {
  const tokens: Record<string, string> = {};
  const users: Record<string, SessionUser> = {};
  for (const handle of handles) {
    const signedUp = await auth.accounts.signUp({
      handle,
      displayName: handle[0]!.toUpperCase() + handle.slice(1),
      password,
    });
    if (!signedUp.ok) throw new Error(signedUp.reason.message);
    if (!('token' in signedUp.value)) throw new Error(`${handle}'s sign-up waits for approval`);
    tokens[handle] = signedUp.value.token;
    users[handle] = signedUp.value.user;
  }
  return { tokens, users };
}

/** A local user with a browser key: the did is on their row, the private key stays with the test. */
export interface KeyedUser {
  user: SessionUser;
  privateKey: CryptoKey;
}

/** Inserts a local user (display name capitalised) with a fresh browser key. */
export async function insertKeyedUser(node: NodeContext, handle: string): Promise<KeyedUser> {
  const pair = await generateSigningKeyPair();
  const row = await node.db.prisma.user.create({
    data: {
      handle,
      displayName: handle[0]!.toUpperCase() + handle.slice(1),
      passwordHash: 'x',
      did: await publicKeyToDidKey(pair.publicKey),
      publicKey: await exportPublicKeyPem(pair.publicKey),
    },
  });
  return { user: sessionUserOf(row), privateKey: pair.privateKey };
}

type SignInput = Parameters<typeof signUserAction>[0];

/** What the browser does for an action on a remote post: prepare, sign the exact payload. */
export async function signedInteraction(
  caller: {
    interactions: {
      prepare(input: {
        kind: 'like' | 'unlike' | 'repost' | 'unrepost';
        postId: string;
      }): Promise<{ local: true } | ({ local: false } & Omit<SignInput, 'privateKey'>)>;
    };
  },
  privateKey: CryptoKey,
  kind: 'like' | 'unlike' | 'repost' | 'unrepost',
  postId: string,
) {
  const prepared = await caller.interactions.prepare({ kind, postId });
  if (prepared.local) throw new Error('expected a remote post');
  const signature = await signUserAction({
    privateKey,
    action: prepared.action,
    targetDomain: prepared.targetDomain,
    body: prepared.body,
  });
  return { body: prepared.body, signature };
}

/**
 * How a call failed with a TRPCError (checked by name: not every user depends on @trpc/server);
 * `field` is the refusal's field when it names one (what the error formatter sends as `data.field`).
 */
export async function trpcFailure(
  call: Promise<unknown>,
): Promise<{ code: string; message: string; field?: string }> {
  try {
    await call;
  } catch (cause) {
    const e = cause as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };
    if (e.name === 'TRPCError' && typeof e.code === 'string') {
      const field = isRefusalError(e.cause) ? e.cause.refusal.field : undefined;
      return { code: e.code, message: String(e.message), ...(field ? { field } : {}) };
    }
    throw cause;
  }
  throw new Error('expected the call to fail');
}
