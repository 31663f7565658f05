import { randomBytes } from 'node:crypto';
import {
  hashInviteCode,
  ok,
  REGISTRATION_MODE_KEY,
  REGISTRATION_MODES,
  type RegistrationMode,
  type Result,
} from '@swarm/contract';
import type { Db, Prisma } from '@swarm/db';
import type { Clock } from '../clock.ts';
import { refuse, type Refusal } from '../refusal.ts';
import type { AuditService } from '../ops/audit.service.ts';

/**
 * Who may join this node (issue #15): `open`; `approval` (a reason to give, an admin approves or
 * rejects; until then the account is hidden and cannot log in); `invite` (closed but for invite
 * links an admin makes). The node's rules, which sign-up links to, live here too. The first
 * account of a node can always be made (it becomes the admin).
 */

export const RULES_MAX = 10_000;
export const INVITE_MAX_USES = 1000;
export const INVITE_MAX_DAYS = 365;

const MODE_KEY = REGISTRATION_MODE_KEY;
const RULES_KEY = 'rules';

export interface RegistrationSettings {
  mode: RegistrationMode;
  rules: string;
}

export interface InviteView {
  id: string;
  maxUses: number;
  uses: number;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
  createdBy: string | null;
  usable: boolean;
}

export interface PendingSignUp {
  id: string;
  handle: string;
  displayName: string;
  reason: string;
  createdAt: string;
}

export interface RegistrationService {
  settings(): Promise<RegistrationSettings>;
  setMode(
    actor: string,
    mode: string,
    reason?: string,
  ): Promise<Result<RegistrationSettings, Refusal>>;
  setRules(actor: string, rules: string): Promise<Result<RegistrationSettings, Refusal>>;
  /** A new invite; its code is shown once (only its hash is kept). */
  createInvite(
    actor: { handle: string; userId?: string | null },
    input: { maxUses?: number; expiresInDays?: number | null },
  ): Promise<Result<{ code: string; invite: InviteView }, Refusal>>;
  invites(): Promise<InviteView[]>;
  revokeInvite(actor: string, id: string): Promise<Result<InviteView[], Refusal>>;
  pending(): Promise<PendingSignUp[]>;
  approve(
    actor: string,
    userId: string,
    reason?: string,
  ): Promise<Result<PendingSignUp[], Refusal>>;
  reject(actor: string, userId: string, reason?: string): Promise<Result<PendingSignUp[], Refusal>>;
}

export function createRegistrationService(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
}): RegistrationService {
  const { prisma } = deps.db;
  const { audit, clock } = deps;

  async function settings(): Promise<RegistrationSettings> {
    const rows = await prisma.nodeSetting.findMany({
      where: { key: { in: [MODE_KEY, RULES_KEY] } },
    });
    const byKey = new Map(rows.map((r) => [r.key, r.value]));
    const mode = byKey.get(MODE_KEY) as RegistrationMode | undefined;
    return {
      mode: mode && REGISTRATION_MODES.includes(mode) ? mode : 'open',
      rules: byKey.get(RULES_KEY) ?? '',
    };
  }

  async function put(tx: Prisma.TransactionClient, key: string, value: string) {
    await tx.nodeSetting.upsert({
      where: { key },
      create: { key, value, updatedAt: clock.now() },
      update: { value, updatedAt: clock.now() },
    });
  }

  function inviteView(row: {
    id: string;
    maxUses: number;
    uses: number;
    expiresAt: Date | null;
    revokedAt: Date | null;
    createdAt: Date;
    createdBy: { handle: string } | null;
  }): InviteView {
    const now = clock.now().getTime();
    return {
      id: row.id,
      maxUses: row.maxUses,
      uses: row.uses,
      expiresAt: row.expiresAt?.toISOString() ?? null,
      revokedAt: row.revokedAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      createdBy: row.createdBy?.handle ?? null,
      usable:
        row.revokedAt === null &&
        row.uses < row.maxUses &&
        (row.expiresAt === null || row.expiresAt.getTime() > now),
    };
  }

  const inviteSelect = {
    id: true,
    maxUses: true,
    uses: true,
    expiresAt: true,
    revokedAt: true,
    createdAt: true,
    createdBy: { select: { handle: true } },
  } as const;

  async function listInvites() {
    const rows = await prisma.invite.findMany({
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      take: 200,
      select: inviteSelect,
    });
    return rows.map(inviteView);
  }

  async function pending(): Promise<PendingSignUp[]> {
    const rows = await prisma.user.findMany({
      where: { pendingApproval: true },
      orderBy: [{ createdAt: 'asc' }, { handle: 'asc' }],
      take: 500,
      select: { id: true, handle: true, displayName: true, signupReason: true, createdAt: true },
    });
    return rows.map((r) => ({
      id: r.id,
      handle: r.handle,
      displayName: r.displayName,
      reason: r.signupReason ?? '',
      createdAt: r.createdAt.toISOString(),
    }));
  }

  async function decide(
    actor: string,
    userId: string,
    decision: 'approve' | 'reject',
    reason: string | undefined,
  ): Promise<Result<PendingSignUp[], Refusal>> {
    if (!isUuid(userId)) return refuse('NOT_FOUND', 'No sign-up waiting with that id.');
    const user = await prisma.user.findFirst({
      where: { id: userId, pendingApproval: true },
      select: { id: true, handle: true },
    });
    if (!user) return refuse('NOT_FOUND', 'No sign-up waiting with that id.');
    await prisma.$transaction(async (tx) => {
      const changed =
        decision === 'approve'
          ? await tx.user.updateMany({
              where: { id: user.id, pendingApproval: true },
              data: { pendingApproval: false },
            })
          : await tx.user.deleteMany({ where: { id: user.id, pendingApproval: true } });
      if (changed.count === 0) return;
      await audit.record(
        {
          actor,
          action: decision === 'approve' ? 'registration.approve' : 'registration.reject',
          target: user.handle,
          reason: reason ?? '',
        },
        tx,
      );
    });
    return ok(await pending());
  }

  return {
    settings,

    async setMode(actor, mode, reason) {
      if (!REGISTRATION_MODES.includes(mode as RegistrationMode)) {
        return refuse(
          'INVALID_REQUEST',
          `Registrations are one of: ${REGISTRATION_MODES.join(', ')}.`,
        );
      }
      await prisma.$transaction(async (tx) => {
        await put(tx, MODE_KEY, mode);
        await audit.record({ actor, action: 'registrations.mode', target: mode, reason }, tx);
      });
      return ok(await settings());
    },

    async setRules(actor, rules) {
      const text = typeof rules === 'string' ? rules.trim() : '';
      if (text.length > RULES_MAX) {
        return refuse('INVALID_REQUEST', `The rules may have at most ${RULES_MAX} characters.`);
      }
      await prisma.$transaction(async (tx) => {
        await put(tx, RULES_KEY, text);
        await audit.record(
          { actor, action: 'rules.update', target: `${text.length} characters` },
          tx,
        );
      });
      return ok(await settings());
    },

    async createInvite(actor, input) {
      const maxUses = input.maxUses ?? 1;
      if (!Number.isInteger(maxUses) || maxUses < 1 || maxUses > INVITE_MAX_USES) {
        return refuse('INVALID_REQUEST', `An invite is good for 1 to ${INVITE_MAX_USES} sign-ups.`);
      }
      const days = input.expiresInDays ?? null;
      if (days !== null && (!Number.isInteger(days) || days < 1 || days > INVITE_MAX_DAYS)) {
        return refuse(
          'INVALID_REQUEST',
          `An invite expires in 1 to ${INVITE_MAX_DAYS} days, or never.`,
        );
      }
      const code = randomBytes(18).toString('base64url');
      const now = clock.now();
      const codeHash = await hashInviteCode(code);
      const row = await prisma.$transaction(async (tx) => {
        const created = await tx.invite.create({
          data: {
            codeHash,
            createdById: actor.userId ?? null,
            maxUses,
            expiresAt: days === null ? null : new Date(now.getTime() + days * 86_400_000),
            createdAt: now,
          },
          select: inviteSelect,
        });
        await audit.record(
          {
            actor: actor.handle,
            action: 'invite.create',
            target: created.id,
            details: { maxUses, expiresInDays: days },
          },
          tx,
        );
        return created;
      });
      return ok({ code, invite: inviteView(row) });
    },

    invites: listInvites,

    async revokeInvite(actor, id) {
      if (!isUuid(id)) return refuse('NOT_FOUND', 'No invite with that id.');
      const done = await prisma.$transaction(async (tx) => {
        const { count } = await tx.invite.updateMany({
          where: { id, revokedAt: null },
          data: { revokedAt: clock.now() },
        });
        if (count === 1) await audit.record({ actor, action: 'invite.revoke', target: id }, tx);
        return count === 1 || (await tx.invite.count({ where: { id } })) === 1;
      });
      if (!done) return refuse('NOT_FOUND', 'No invite with that id.');
      return ok(await listInvites());
    },

    pending,
    approve: (actor, userId, reason) => decide(actor, userId, 'approve', reason),
    reject: (actor, userId, reason) => decide(actor, userId, 'reject', reason),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
