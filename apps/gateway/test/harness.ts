// @swarm/testnet with this app plugged in.
import { gatewayHarness } from '@swarm/testnet';
import { createGatewayApp } from '../src/index.ts';

export * from '@swarm/testnet';
export const { createTestNode, createTestNetwork } = gatewayHarness(createGatewayApp);
