import { createPublicKey } from 'node:crypto';
import { isIP } from 'node:net';
import { isLoopbackDomain, ok, refuse, type Refusal, type Result } from '@swarm/contract';
import { mediaTargetOf } from '../peers/peer-targets.ts';
import { PUSH_OUTBOX_MAX } from '../persistence/push.sql.ts';
import { specialUseRange } from '../peers/ssrf-guard.ts';

/**
 * What a Web Push subscription may be (docs/clients.md "Web Push", docs/security.md): the
 * alerts and policies Mastodon apps send, and the checks on the endpoint and keys an app or a
 * browser gives. The endpoint is a URL this node will POST to, chosen by whoever subscribes.
 */

export const WEB_PUSH = {
  /** Subscriptions one person may have (apps and browsers); a new one past it drops the oldest. */
  subscriptionsPerUser: 10,
  /** Notifications waiting to be pushed, node-wide; past it new ones are not queued. */
  outboxMax: PUSH_OUTBOX_MAX,
  /** One push service's whole exchange. */
  timeoutMs: 5_000,
  /** Tries per notification before it is dropped (push is best effort, never retried for long). */
  maxAttempts: 3,
  /** How long a push service may keep a message for an offline device. */
  ttlSeconds: 48 * 3600,
  endpointMaxChars: 2_000,
} as const;

/** Mastodon's alert names. Those this node never produces are kept as sent, so apps read them back. */
export const PUSH_ALERTS = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'admin.sign_up',
  'admin.report',
] as const;
export type PushAlert = (typeof PUSH_ALERTS)[number];

export const PUSH_POLICIES = ['all', 'followed', 'follower', 'none'] as const;
export type PushPolicy = (typeof PUSH_POLICIES)[number];

export function isPushPolicy(value: unknown): value is PushPolicy {
  return typeof value === 'string' && (PUSH_POLICIES as readonly string[]).includes(value);
}

/** The Mastodon notification type of each of ours, which is also the alert that gates it. */
export const ALERT_OF_NOTIFICATION = {
  like: 'favourite',
  repost: 'reblog',
  follow: 'follow',
  mention: 'mention',
  // Mastodon has no reply notification: a reply mentions the person it answers.
  reply: 'mention',
} as const satisfies Record<string, PushAlert>;

export interface PushKeys {
  p256dh: string;
  auth: string;
}

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

function base64urlBytes(value: string): Buffer | null {
  if (!BASE64URL.test(value)) return null;
  return Buffer.from(value.replace(/=+$/, ''), 'base64url');
}

const invalid = (field: string, message: string) => refuse('INVALID_REQUEST', message, { field });

/**
 * An endpoint this node may POST to: https (plain http only to a loopback host, and loopback
 * only in development mode, as for peers), no credentials, and not a literal private address.
 * A host name is checked again when each push is sent: the peer client resolves it and refuses
 * private addresses, so a name that points inside later still reaches nothing.
 */
export function checkPushEndpoint(raw: unknown, dev: boolean): Result<string, Refusal> {
  if (typeof raw !== 'string' || raw.trim() === '') {
    return invalid('endpoint', "Validation failed: Endpoint can't be blank");
  }
  if (raw.length > WEB_PUSH.endpointMaxChars) {
    return invalid('endpoint', 'Validation failed: Endpoint is too long');
  }
  const target = mediaTargetOf(raw.trim());
  if (!target.ok) {
    return invalid('endpoint', `Validation failed: Endpoint is not valid (${target.reason})`);
  }
  const { domain, url } = target.value;
  if (isLoopbackDomain(domain)) {
    return dev
      ? ok(url.href)
      : invalid('endpoint', 'Validation failed: Endpoint is not valid (a loopback address)');
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) && specialUseRange(host) !== null) {
    return invalid('endpoint', 'Validation failed: Endpoint is not valid (a private address)');
  }
  return ok(url.href);
}

/** The browser's keys: a P-256 public point (65 bytes) and a 16-byte auth secret, base64url. */
export function checkPushKeys(p256dh: unknown, auth: unknown): Result<PushKeys, Refusal> {
  if (typeof p256dh !== 'string' || p256dh === '') {
    return invalid('keys.p256dh', "Validation failed: Keys p256dh can't be blank");
  }
  if (typeof auth !== 'string' || auth === '') {
    return invalid('keys.auth', "Validation failed: Keys auth can't be blank");
  }
  const point = base64urlBytes(p256dh);
  if (!point || point.length !== 65 || point[0] !== 4 || !isP256Point(point)) {
    return invalid('keys.p256dh', 'Validation failed: Keys p256dh is not a P-256 public key');
  }
  const secret = base64urlBytes(auth);
  if (!secret || secret.length !== 16) {
    return invalid('keys.auth', 'Validation failed: Keys auth is not a 16-byte secret');
  }
  return ok({ p256dh: point.toString('base64url'), auth: secret.toString('base64url') });
}

function isP256Point(point: Buffer): boolean {
  try {
    createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
    return true;
  } catch {
    return false;
  }
}

/** The alerts that are on, from Mastodon's `{alert: boolean}` (a form sends "true"/"1"). */
export function alertsFrom(input: unknown, previous: readonly string[] = []): PushAlert[] {
  const on = new Set(previous);
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const record = input as Record<string, unknown>;
    for (const alert of PUSH_ALERTS) {
      // `admin.sign_up` may come flat or nested (`admin: {sign_up}`), as Rails forms nest it.
      const [head, tail] = alert.split('.') as [string, string | undefined];
      const nested = record[head];
      const value =
        tail === undefined
          ? record[alert]
          : (record[alert] ??
            (nested && typeof nested === 'object'
              ? (nested as Record<string, unknown>)[tail]
              : undefined));
      if (value === undefined) continue;
      if (truthy(value)) on.add(alert);
      else on.delete(alert);
    }
  }
  return PUSH_ALERTS.filter((alert) => on.has(alert));
}

function truthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  return typeof value === 'string' && ['true', '1', 'on', 't', 'yes'].includes(value.toLowerCase());
}
