import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { createNodeInfoService } from '../node-info.service.ts';
import type { NodeKeys } from '../node-keys.service.ts';
import type { PeerClient, PeerProfiles } from '../peers/index.ts';
import { createGossipService, type GossipService } from './gossip.service.ts';
import { createRegistryService, type RegistryService } from './registry.service.ts';

/** The NodeContext members of the registry: node registry and trust, announce, gossip. */
export interface SwarmServices {
  registry: RegistryService;
  gossip: GossipService;
}

export function createSwarmServices(deps: {
  config: NodeConfig;
  db: Db;
  clock: Clock;
  logger: Logger;
  peers: PeerClient;
  keys: NodeKeys;
  profiles?: PeerProfiles;
}): SwarmServices {
  const nodeInfo = createNodeInfoService(deps);
  const registry = createRegistryService({ ...deps, nodeInfo });
  return { registry, gossip: createGossipService({ ...deps, registry }) };
}
