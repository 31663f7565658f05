import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import {
  REPORT_ACTIONS,
  adminAuditPageSchema,
  adminReportListSchema,
  adminReportSchema,
} from '@swarm/contract';
import type { AdminClient } from './admin-client.ts';
import { ago, table } from './format.ts';

// Moderation from the command line (issue #15): the reports queue and its actions, suspension of
// a local user, the audit log. Through the admin API (GET/POST /api/swarm/admin/reports…,
// PUT …/users/{handle}/suspension, GET …/audit); the node writes `cli:<token name>` as the
// actor of every action in its audit log.

const STATUSES = ['open', 'resolved', 'dismissed', 'all'];
const ACTIONS: string[] = [...REPORT_ACTIONS];

const oneOf = (allowed: string[]) => (value: string) => {
  if (!allowed.includes(value)) throw new InvalidArgumentError(`one of ${allowed.join(', ')}.`);
  return value;
};
const limit = (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 200) {
    throw new InvalidArgumentError('expected an integer between 1 and 200.');
  }
  return n;
};
const short = (text: string | null, max = 60) =>
  text === null ? '' : text.length > max ? `${text.slice(0, max - 1)}…` : text;

export function addModerationCommands(
  program: Command,
  users: Command,
  client: () => AdminClient,
): void {
  const reports = program.command('reports').description('the moderation queue');
  reports
    .command('list')
    .description('reports, open ones first-come first-served')
    .option('--status <status>', `one of ${STATUSES.join(', ')}`, oneOf(STATUSES), 'open')
    .option('--limit <n>', 'at most this many', limit, 100)
    .action(async (opts: { status: string; limit: number }) => {
      const body = await client().adminGet(
        `/api/swarm/admin/reports?status=${opts.status}&limit=${opts.limit}`,
        adminReportListSchema,
      );
      console.log(
        table(
          ['id', 'filed', 'status', 'category', 'about', 'by', 'post', 'comment', 'forwarded'],
          body.reports.map((r) => [
            r.id,
            ago(r.createdAt),
            r.resolution ? `${r.status} (${r.resolution})` : r.status,
            r.category,
            r.targetAddress,
            r.reporter,
            // A report naming several posts shows its first and how many more.
            `${short(r.postExcerpt, 40)}${r.posts.length > 1 ? ` (+${r.posts.length - 1})` : ''}`,
            short(r.comment, 40),
            r.forwardState ?? '',
          ]),
        ),
      );
      console.log(
        `${body.reports.length} ${opts.status === 'all' ? '' : `${opts.status} `}report(s)`,
      );
    });
  reports
    .command('act <id> <action>')
    .description(`act on an open report: ${ACTIONS.join(', ')}`)
    .requiredOption('--reason <text>', 'why (goes to the audit log)')
    .action(async (id: string, action: string, opts: { reason: string }) => {
      oneOf(ACTIONS)(action);
      const report = await client().adminPostFor(
        `/api/swarm/admin/reports/${encodeURIComponent(id)}/action`,
        { action, reason: opts.reason },
        adminReportSchema,
      );
      console.log(`report ${report.id}: ${report.status} (${report.resolution ?? action})`);
    });

  for (const [name, suspended] of [
    ['suspend', true],
    ['unsuspend', false],
  ] as const) {
    users
      .command(`${name} <handle>`)
      .description(
        suspended
          ? 'suspend a local user: signed out, cannot log in, content hidden (reversible)'
          : 'lift the suspension of a local user',
      )
      .requiredOption('--reason <text>', 'why (goes to the audit log)')
      .action(async (handle: string, opts: { reason: string }) => {
        await client().adminPut(`/api/swarm/admin/users/${encodeURIComponent(handle)}/suspension`, {
          suspended,
          reason: opts.reason,
        });
        console.log(`${handle} is ${suspended ? 'suspended' : 'no longer suspended'}`);
      });
  }

  program
    .command('audit')
    .description('the audit log of moderation and admin actions, newest first')
    .option('--q <text>', 'only entries whose actor, action, target or reason contain this')
    .option('--action <action>', 'only this action (e.g. user.suspend)')
    .option('--before <iso>', 'entries before this time (the next page)')
    .option('--limit <n>', 'at most this many', limit, 50)
    .action(async (opts: { q?: string; action?: string; before?: string; limit: number }) => {
      const query = new URLSearchParams({ limit: String(opts.limit) });
      if (opts.q) query.set('q', opts.q);
      if (opts.action) query.set('action', opts.action);
      if (opts.before) query.set('before', opts.before);
      const body = await client().adminGet(`/api/swarm/admin/audit?${query}`, adminAuditPageSchema);
      console.log(
        table(
          ['when', 'who', 'what', 'on', 'why'],
          body.entries.map((e) => [
            e.createdAt,
            e.actor,
            e.action,
            short(e.target),
            short(e.reason),
          ]),
        ),
      );
      if (body.nextBefore) console.log(`more: --before ${body.nextBefore}`);
    });
}
