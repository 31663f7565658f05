import { ok, parseDomain, type Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import type { Clock } from '../clock.ts';
import type { NodeConfig } from '../config.ts';
import { refuse, type Refusal } from '../refusal.ts';
import { applyBlock } from './blocks.ts';
import { parsePersonAddress } from '../views/addresses.ts';

/**
 * What a person does to protect themselves (issue #15): mute a person or a whole node (silently
 * left out of their timelines and notifications; nobody is told), block a person (one block
 * list, the messages' one: their follow of me goes and is refused, their replies, mentions,
 * likes and messages are refused, they cannot see my posts on this node).
 */

export interface MuteView {
  kind: 'person' | 'node';
  /** `handle@domain` for a person, `domain` for a node. */
  target: string;
  createdAt: string;
}

export interface BlockEntryView {
  address: string;
  createdAt: string;
}

export interface SafetyService {
  mute(userId: string, target: string): Promise<Result<MuteView[], Refusal>>;
  unmute(userId: string, target: string): Promise<Result<MuteView[], Refusal>>;
  mutes(userId: string): Promise<MuteView[]>;
  block(userId: string, address: string): Promise<Result<BlockEntryView[], Refusal>>;
  unblock(userId: string, address: string): Promise<Result<BlockEntryView[], Refusal>>;
  blocks(userId: string): Promise<BlockEntryView[]>;
  /** Whether the local user `ownerId` blocked `address` (`handle@domain`). */
  isBlockedBy(ownerId: string, address: string): Promise<boolean>;
  /** Ids of local users who blocked `address` among `ownerIds`. */
  blockersAmong(ownerIds: readonly string[], address: string): Promise<Set<string>>;
}

export const MUTES_MAX = 5000;
export const BLOCKS_MAX = 5000;

export function createSafetyService(deps: {
  db: Db;
  clock: Clock;
  config: Pick<NodeConfig, 'domain'>;
}): SafetyService {
  const { prisma } = deps.db;
  const self = deps.config.domain;

  async function listMutes(userId: string): Promise<MuteView[]> {
    const rows = await prisma.userMute.findMany({
      where: { userId },
      orderBy: [{ createdAt: 'desc' }, { target: 'asc' }],
      take: MUTES_MAX,
    });
    return rows.map((r) => ({
      kind: r.kind === 'node' ? 'node' : 'person',
      target: r.target,
      createdAt: r.createdAt.toISOString(),
    }));
  }

  async function listBlocks(userId: string): Promise<BlockEntryView[]> {
    const rows = await prisma.userBlock.findMany({
      where: { userId },
      orderBy: [{ createdAt: 'desc' }, { blockedAddress: 'asc' }],
      take: BLOCKS_MAX,
      select: { blockedAddress: true, createdAt: true },
    });
    return rows.map((r) => ({ address: r.blockedAddress, createdAt: r.createdAt.toISOString() }));
  }

  /** A person (`alice`, `@bob@beta.example`) or a node (`beta.example`). */
  function parseTarget(
    input: string,
  ): Result<{ kind: 'person' | 'node'; target: string }, Refusal> {
    const text = typeof input === 'string' ? input.trim().replace(/^@/, '') : '';
    if (text === '') return refuse('INVALID_REQUEST', 'Say whom to mute: a person or a node.');
    if (text.includes('@') || !/[.:]/.test(text)) {
      const address = parsePersonAddress(text, self);
      if (!address.ok) return refuse('INVALID_REQUEST', `Not a valid address: ${address.reason}.`);
      return ok({ kind: 'person', target: address.value });
    }
    const domain = parseDomain(text);
    if (!domain.ok) return refuse('INVALID_REQUEST', `Not a valid node domain: ${domain.reason}.`);
    if (domain.value === self) return refuse('INVALID_REQUEST', 'You cannot mute your own node.');
    return ok({ kind: 'node', target: domain.value });
  }

  async function ownAddress(userId: string): Promise<string | null> {
    const user = await prisma.user.findUnique({ where: { id: userId }, select: { handle: true } });
    return user ? `${user.handle}@${self}` : null;
  }

  return {
    async mute(userId, input) {
      const parsed = parseTarget(input);
      if (!parsed.ok) return parsed;
      const me = await ownAddress(userId);
      if (!me)
        return refuse('UNAUTHORIZED', 'Your account does not exist any more: sign in again.');
      if (parsed.value.target === me) return refuse('INVALID_REQUEST', 'You cannot mute yourself.');
      const count = await prisma.userMute.count({ where: { userId } });
      if (count >= MUTES_MAX)
        return refuse('INVALID_REQUEST', `You can mute at most ${MUTES_MAX}.`);
      await prisma.userMute.createMany({
        data: [{ userId, ...parsed.value, createdAt: deps.clock.now() }],
        skipDuplicates: true,
      });
      return ok(await listMutes(userId));
    },

    async unmute(userId, input) {
      const parsed = parseTarget(input);
      if (!parsed.ok) return parsed;
      await prisma.userMute.deleteMany({ where: { userId, target: parsed.value.target } });
      return ok(await listMutes(userId));
    },

    mutes: listMutes,

    async block(userId, input) {
      const address = parsePersonAddress(input, self);
      if (!address.ok) return refuse('INVALID_REQUEST', `Not a valid address: ${address.reason}.`);
      const me = await ownAddress(userId);
      if (!me)
        return refuse('UNAUTHORIZED', 'Your account does not exist any more: sign in again.');
      if (address.value === me) return refuse('INVALID_REQUEST', 'You cannot block yourself.');
      const count = await prisma.userBlock.count({ where: { userId } });
      if (count >= BLOCKS_MAX)
        return refuse('INVALID_REQUEST', `You can block at most ${BLOCKS_MAX}.`);
      await applyBlock(prisma, { userId, address: address.value, self, at: deps.clock.now() });
      return ok(await listBlocks(userId));
    },

    async unblock(userId, input) {
      const address = parsePersonAddress(input, self);
      if (!address.ok) return refuse('INVALID_REQUEST', `Not a valid address: ${address.reason}.`);
      await prisma.userBlock.deleteMany({ where: { userId, blockedAddress: address.value } });
      return ok(await listBlocks(userId));
    },

    blocks: listBlocks,

    async isBlockedBy(ownerId, address) {
      const row = await prisma.userBlock.findFirst({
        where: { userId: ownerId, blockedAddress: { equals: address, mode: 'insensitive' } },
        select: { id: true },
      });
      return row !== null;
    },

    async blockersAmong(ownerIds, address) {
      if (ownerIds.length === 0) return new Set();
      const rows = await prisma.userBlock.findMany({
        where: {
          userId: { in: [...new Set(ownerIds)] },
          blockedAddress: { equals: address, mode: 'insensitive' },
        },
        select: { userId: true },
      });
      return new Set(rows.map((r) => r.userId));
    },
  };
}
