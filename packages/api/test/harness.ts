// @swarm/testnet with this package's `createCaller` and the gateway app plugged in.
import { authServicesOf } from '@swarm/auth';
import { exportPublicKeyPem, generateSigningKeyPair, publicKeyToDidKey } from '@swarm/contract';
import { createGatewayApp } from '@swarm/gateway';
import {
  apiCallers,
  gatewayHarness,
  peersRefuseConnections,
  signUpUsers,
  type TestNodeOverrides,
} from '@swarm/testnet';
import { createCaller } from '../src/index.ts';

export * from '@swarm/testnet';
export const { createTestNode, createTestNetwork, createTwoNodes } =
  gatewayHarness(createGatewayApp);
export const { signedInCaller, tokenCaller } = apiCallers(createCaller);

/** A node of its own (`createTestNode`) and its auth services, as the web app's hook has them. */
export async function createNodeWithAuth(
  env: Record<string, string> = {},
  overrides: TestNodeOverrides = {},
) {
  const t = await createTestNode(env, overrides);
  return { t, auth: authServicesOf(t.node) };
}

/**
 * A node on `domain` whose every other node is down (connection refused), with `handles` signed
 * up: their session tokens and users by handle, and `as(handle)`, a caller as the browser holding
 * that one's token (anonymous for null).
 */
export async function offlineNodeWithPeople(domain: string, handles: string[]) {
  const { t, auth } = await createNodeWithAuth({ SWARM_DOMAIN: domain }, peersRefuseConnections());
  const { tokens, users } = await signUpUsers(auth, handles, 'correct horse battery');
  const as = (handle: string | null) =>
    tokenCaller(t.node, auth, handle ? tokens[handle]! : undefined);
  return { t, auth, tokens, users, as };
}

/** What the browser registers for a fresh key (`auth.registerKey` and sign-up): a stand-in backup. */
export async function browserKey() {
  const { publicKey } = await generateSigningKeyPair(true);
  return {
    publicKey: await exportPublicKeyPem(publicKey),
    did: await publicKeyToDidKey(publicKey),
    encryptedBackup: JSON.stringify({ v: 1, salt: 'c2FsdA', iv: 'aXY', ct: 'Y3Q' }),
  };
}
