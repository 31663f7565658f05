import { z } from 'zod';
import { parseDomain } from './node-domain.ts';
import { stringFromParser } from './primitives.ts';
import type { Result } from './result.ts';
import { err, ok } from './result.ts';

/**
 * Handles, two rules on purpose:
 * - REMOTE_HANDLE is what we accept from other nodes (gossip, profiles, interaction actors):
 *   tolerant of other implementations' choices (upper case, dots, hyphens, up to 64 chars), but
 *   still free of `@`, `/`, `:` and whitespace so it can sit in `handle@domain`,
 *   `swarm://domain/handle` and a URL path segment without escaping games.
 * - LOCAL_HANDLE is what our own sign-up allows: 3–30 of `[a-z0-9_]`, stored lower-case, so a
 *   local handle is always a valid remote handle everywhere else.
 */
export const REMOTE_HANDLE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
export const LOCAL_HANDLE = /^[a-z0-9_]{3,30}$/;

/**
 * Post ids from other nodes: URL-safe (unreserved characters), no `:` (so the id is the last
 * segment of `swarm:{domain}:{postId}`), starting with a letter or digit (no `.`/`..`). Covers
 * UUIDs, ULIDs, cuids and integers.
 */
export const POST_ID = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,127}$/;

export function parseRemoteHandle(input: string): Result<string> {
  if (typeof input !== 'string' || input === '') return err('handle is empty');
  if (!REMOTE_HANDLE.test(input)) {
    return err(
      `"${input}" is not a valid handle (1–64 of letters, digits, "_", "." and "-", not starting with "." or "-")`,
    );
  }
  return ok(input);
}

/** Sign-up rule; the input is lower-cased first, the stored form is lower-case. */
export function parseLocalHandle(input: string): Result<string> {
  if (typeof input !== 'string') return err('handle must be a string');
  const lower = input.toLowerCase();
  if (!LOCAL_HANDLE.test(lower))
    return err('handle must be 3 to 30 characters of a–z, 0–9 and "_"');
  return ok(lower);
}

export function parsePostId(input: string): Result<string> {
  if (typeof input !== 'string' || input === '') return err('post id is empty');
  if (!POST_ID.test(input))
    return err(`"${input}" is not a valid post id (URL-safe characters, no ":")`);
  return ok(input);
}

export const remoteHandleSchema = z
  .string()
  .regex(REMOTE_HANDLE, { message: 'not a valid handle' });
export const localHandleSchema = stringFromParser(parseLocalHandle);
export const postIdSchema = z.string().regex(POST_ID, { message: 'not a valid post id' });

export interface HandleAddress {
  handle: string;
  domain: string;
}

/** `alice@beta.example:8443` (a leading `@`, as typed by people, is tolerated). */
export function parseHandleAddress(input: string): Result<HandleAddress> {
  if (typeof input !== 'string') return err('handle address must be a string');
  const text = input.startsWith('@') ? input.slice(1) : input;
  const at = text.indexOf('@');
  if (at < 0) return err(`"${input}" has no "@domain" part`);
  const handle = parseRemoteHandle(text.slice(0, at));
  if (!handle.ok) return handle;
  const domain = parseDomain(text.slice(at + 1));
  if (!domain.ok) return err(`invalid domain in "${input}": ${domain.reason}`);
  return ok({ handle: handle.value, domain: domain.value });
}

function checked(handle: string, domain: string, what: string): HandleAddress {
  const h = parseRemoteHandle(handle);
  if (!h.ok) throw new TypeError(`${what}: ${h.reason}`);
  const d = parseDomain(domain);
  if (!d.ok) throw new TypeError(`${what}: ${d.reason}`);
  return { handle: h.value, domain: d.value };
}

/** Throws on an invalid handle or domain: formatting is for our own, already valid, data. */
export function formatHandleAddress(address: HandleAddress): string {
  const { handle, domain } = checked(address.handle, address.domain, 'formatHandleAddress');
  return `${handle}@${domain}`;
}

/** `handle@domain` → its normalised string form (domain lower-cased, no leading `@`). */
function normaliseHandleAddress(input: string): Result<string> {
  const parsed = parseHandleAddress(input);
  return parsed.ok ? ok(`${parsed.value.handle}@${parsed.value.domain}`) : parsed;
}

/** A `handle@domain` address as a string field. */
export const handleAddressSchema = stringFromParser(normaliseHandleAddress);

/** Author handle in post and reply shapes: a plain handle, or `handle@domain` for remote authors. */
export const authorHandleSchema = stringFromParser((input) =>
  input.includes('@') ? normaliseHandleAddress(input) : parseRemoteHandle(input),
);

export interface SwarmPostId {
  domain: string;
  postId: string;
}

const SWARM_POST_PREFIX = 'swarm:';

/** `swarm:{domain}:{postId}`; the domain may itself contain `:port` (or IPv6), so the id is the last segment. */
export function parseSwarmPostId(input: string): Result<SwarmPostId> {
  if (typeof input !== 'string') return err('swarm post id must be a string');
  if (!input.startsWith(SWARM_POST_PREFIX)) return err(`"${input}" does not start with "swarm:"`);
  const rest = input.slice(SWARM_POST_PREFIX.length);
  const lastColon = rest.lastIndexOf(':');
  if (lastColon < 0) return err(`"${input}" is not of the form swarm:{domain}:{postId}`);
  const domain = parseDomain(rest.slice(0, lastColon));
  if (!domain.ok) return err(`invalid domain in "${input}": ${domain.reason}`);
  const postId = parsePostId(rest.slice(lastColon + 1));
  if (!postId.ok) return postId;
  return ok({ domain: domain.value, postId: postId.value });
}

export function formatSwarmPostId(id: SwarmPostId): string {
  const domain = parseDomain(id.domain);
  if (!domain.ok) throw new TypeError(`formatSwarmPostId: ${domain.reason}`);
  const postId = parsePostId(id.postId);
  if (!postId.ok) throw new TypeError(`formatSwarmPostId: ${postId.reason}`);
  return `${SWARM_POST_PREFIX}${domain.value}:${postId.value}`;
}

const ACTOR_URL_PREFIX = 'swarm://';

/** `swarm://{domain}/{handle}`, the actor URL under which remote followers are stored. */
export function parseActorUrl(input: string): Result<HandleAddress> {
  if (typeof input !== 'string') return err('actor URL must be a string');
  if (!input.startsWith(ACTOR_URL_PREFIX)) return err(`"${input}" does not start with "swarm://"`);
  const rest = input.slice(ACTOR_URL_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash < 0) return err(`"${input}" is not of the form swarm://{domain}/{handle}`);
  const domain = parseDomain(rest.slice(0, slash));
  if (!domain.ok) return err(`invalid domain in "${input}": ${domain.reason}`);
  const handle = parseRemoteHandle(rest.slice(slash + 1));
  if (!handle.ok) return handle;
  return ok({ domain: domain.value, handle: handle.value });
}

export function formatActorUrl(address: HandleAddress): string {
  const { handle, domain } = checked(address.handle, address.domain, 'formatActorUrl');
  return `${ACTOR_URL_PREFIX}${domain}/${handle}`;
}
