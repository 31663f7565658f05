import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { PeerClient } from './peer-client.ts';

/**
 * What a service that keeps its state here and reads from peers is built from: its deps extend
 * this with their own ports (delivery, registry, …).
 */
export interface PeerServiceDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: Pick<NodeConfig, 'domain'>;
  peers: Pick<PeerClient, 'getJson'>;
}
