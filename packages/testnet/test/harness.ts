// The harness with this workspace's apps plugged in: @swarm/testnet takes them as arguments and
// imports none of them. The swarm tests and benchmarks run whole nodes; the workspace root
// declares the apps they use (see docs/architecture.md, "Tests").
import { createCaller } from '@swarm/api';
import { createGatewayApp } from '@swarm/gateway';
import { apiCallers, gatewayHarness } from '../src/index.ts';

export * from '../src/index.ts';
export const { createTestNode, createTestNetwork, createTwoNodes } =
  gatewayHarness(createGatewayApp);
export const { signedInCaller, tokenCaller } = apiCallers(createCaller);
