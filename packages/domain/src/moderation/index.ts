import type { Db } from '@swarm/db';
import type { Result } from '@swarm/contract';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { PeerClient } from '../peers/index.ts';
import type { PostActions } from '../actions/post-actions.service.ts';
import type { DeliveryService } from '../delivery/delivery.service.ts';
import { createAuditService, type AuditService } from './audit.service.ts';
import { createRegistrationService, type RegistrationService } from './registrations.service.ts';
import { createReportService, type ReportService } from './reports.service.ts';
import { createSafetyService, type SafetyService } from './safety.service.ts';

export * from './accounts.ts';
export * from './audit.service.ts';
export * from './registrations.service.ts';
export * from './reports.service.ts';
export * from './safety.service.ts';
export * from './blocks.ts';

/** Safety and moderation (issue #15): mutes and blocks, reports, registrations, audit log. */
export interface ModerationServices {
  safety: SafetyService;
  reports: ReportService;
  registrations: RegistrationService;
  audit: AuditService;
}

export function createModerationServices(deps: {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: Pick<NodeConfig, 'domain'>;
  peers: Pick<PeerClient, 'getJson' | 'postJson'>;
  delivery: Pick<DeliveryService, 'enqueue' | 'attempt'>;
  posts: Pick<PostActions, 'delete'>;
  blockNode: (
    domain: string,
    reason: string,
    createdById?: string,
  ) => Promise<Result<unknown, string>>;
  /** Told after a change of what is shown (the gateways' read caches drop their answers). */
  onChange?: () => Promise<void>;
}): ModerationServices {
  const audit = createAuditService(deps);
  return {
    audit,
    safety: createSafetyService(deps),
    registrations: createRegistrationService({ ...deps, audit }),
    reports: createReportService({ ...deps, audit }),
  };
}
