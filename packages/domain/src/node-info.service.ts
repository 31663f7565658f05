import { SWARM_PROFILE_MARKER, type Capability, type NodeInfo } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { NodeConfig } from './config.ts';
import type { NodeKeys } from './node-keys.service.ts';
import { SOFTWARE_VERSION } from './version.ts';

/** What this node offers peers; grows as features land (messages, …). */
export const ENABLED_CAPABILITIES: readonly Capability[] = [
  'handles',
  'gossip',
  'interactions',
  'messages',
  'reports',
  'deletions',
  'moves',
];

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
        capabilities: [...ENABLED_CAPABILITIES],
        // Tells peers we speak our profile (docs/protocol.md "Peers of the origin profile").
        protocolProfile: SWARM_PROFILE_MARKER,
      };
    },
  };
}
