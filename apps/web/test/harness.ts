// @swarm/testnet with the api's `createCaller` and the gateway app (the peers of the web app's
// node) plugged in.
import { createCaller } from '@swarm/api';
import { createGatewayApp } from '@swarm/gateway';
import { apiCallers, gatewayHarness } from '@swarm/testnet';

export * from '@swarm/testnet';
export const { createTestNode, createTestNetwork, createTwoNodes } =
  gatewayHarness(createGatewayApp);
export const { signedInCaller, tokenCaller } = apiCallers(createCaller);
