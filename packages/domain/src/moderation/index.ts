import { createAuditService, type AuditService } from '../ops/audit.service.ts';
import { createRegistrationService, type RegistrationService } from './registrations.service.ts';
import type { ReportServiceDeps } from './report-model.ts';
import { createReportService, type ReportService } from './reports.service.ts';
import { createSafetyService, type SafetyService } from '../safety/safety.service.ts';

export * from './registrations.service.ts';
export * from './reports.service.ts';

/** Safety and moderation (issue #15): mutes and blocks, reports, registrations, audit log. */
export interface ModerationServices {
  safety: SafetyService;
  reports: ReportService;
  registrations: RegistrationService;
  audit: AuditService;
}

/** Built from the reports' deps; the audit log is made here and shared. */
export function createModerationServices(
  deps: Omit<ReportServiceDeps, 'audit'>,
): ModerationServices {
  const audit = createAuditService(deps);
  return {
    audit,
    safety: createSafetyService(deps),
    registrations: createRegistrationService({ ...deps, audit }),
    reports: createReportService({ ...deps, audit }),
  };
}
