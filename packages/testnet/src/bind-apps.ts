import { createTestNetwork, createTwoNodes, type TestNetworkOptions } from './test-network.ts';
import {
  createTestNode,
  type GatewayApp,
  type GatewayAppFactory,
  type TestNodeOverrides,
} from './test-node.ts';

/**
 * `createTestNode` and `createTestNetwork` with the gateway app factory plugged in. The harness
 * takes the apps it tests as arguments, so that the gateway's, api's and web app's tests can
 * depend on this package while it depends on none of them: each test folder has a small
 * `harness.ts` that passes `createGatewayApp` here (and the api's `createCaller` to `apiCallers`).
 */
export function gatewayHarness<App extends GatewayApp>(gatewayApp: GatewayAppFactory<App>) {
  return {
    createTestNode: (env: Record<string, string> = {}, overrides: TestNodeOverrides = {}) =>
      createTestNode(env, { ...overrides, app: gatewayApp }),
    createTestNetwork: (options: Omit<TestNetworkOptions<App>, 'app'> = {}) =>
      createTestNetwork({ ...options, app: gatewayApp }),
    createTwoNodes: (options: Omit<Parameters<typeof createTwoNodes<App>>[0], 'app'> = {}) =>
      createTwoNodes({ ...options, app: gatewayApp }),
  };
}
