import { CAPABILITIES, SWARM_PROFILE_MARKER, type NodeInfo } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { NodeConfig } from './config.ts';
import type { NodeKeys } from './node-keys.service.ts';
import { SOFTWARE_VERSION } from './version.ts';

export interface NodeInfoService {
  /** This node's info as peers see it (GET /api/swarm/info, announce bodies). */
  get(): Promise<NodeInfo>;
}

export function createNodeInfoService(deps: {
  config: NodeConfig;
  db: Db;
  keys: NodeKeys;
}): NodeInfoService {
  const { config, db, keys } = deps;
  return {
    async get() {
      const [userCount, postCount] = await Promise.all([
        db.prisma.user.count(),
        db.prisma.post.count({ where: { apId: null, deletedAt: null } }),
      ]);
      return {
        domain: config.domain,
        name: config.nodeName,
        description: config.nodeDescription,
        publicKey: keys.publicKeyPem,
        softwareVersion: SOFTWARE_VERSION,
        userCount,
        postCount,
        // This node offers every capability the contract names.
        capabilities: [...CAPABILITIES],
        // Tells peers we speak our profile (docs/protocol.md "Peers of the origin profile").
        protocolProfile: SWARM_PROFILE_MARKER,
      };
    },
  };
}
