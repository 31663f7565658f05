// @swarm/testnet with this package's `createCaller` and the gateway app plugged in.
import { createGatewayApp } from '@swarm/gateway';
import { apiCallers, gatewayHarness } from '@swarm/testnet';
import { createCaller } from '../src/index.ts';

export * from '@swarm/testnet';
export const { createTestNode, createTestNetwork } = gatewayHarness(createGatewayApp);
export const { signedInCaller, tokenCaller } = apiCallers(createCaller);
