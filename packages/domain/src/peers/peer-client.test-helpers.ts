import { generateSigningKeyPair } from '@swarm/contract';
import { expect } from 'vitest';
import type { Logger } from '../logger.ts';
import { createPeerClient, type PeerClientDeps } from './peer-client.ts';
import type { PeerError } from './peer-errors.ts';

// What the peer client's tests share: a fixed clock, a silent logger, a node's keys and info.

export const NOW = new Date('2026-11-22T14:00:00.000Z');
const clock = { now: () => NOW };
const silent = () => undefined;
const logger = { debug: silent, info: silent, warn: silent, error: silent } as unknown as Logger;

export const INFO = {
  domain: 'beta.example',
  name: 'Beta',
  description: 'A peer used by the peer client tests.',
  publicKey: '',
  softwareVersion: '1.0.0',
  userCount: 3,
  postCount: 7,
  capabilities: ['handles', 'gossip'],
  somethingExtra: true,
};

export const keys = await generateSigningKeyPair();

export function client(overrides: Partial<PeerClientDeps> = {}) {
  return createPeerClient({
    config: { domain: 'alpha.example', dev: true },
    keys,
    clock,
    logger,
    ...overrides,
  });
}

export function failure(result: { ok: boolean; reason?: PeerError }): PeerError {
  expect(result.ok).toBe(false);
  return result.reason as PeerError;
}
