import { z } from 'zod';
import { sha256Base64url } from './crypto.ts';
import { remoteHandleSchema } from './ids.ts';
import { domainSchema } from './node-domain.ts';
import { timestampSchema } from './primitives.ts';

/**
 * Moderation on the wire (issue #15, docs/protocol.md "Report forwarding"): a node forwards a
 * report about content hosted on another node to that node, node-signed, without the reporter's
 * identity. Capability `reports`.
 */

/** Why something is reported. */
export const REPORT_CATEGORIES = [
  'spam',
  'abuse',
  'illegal',
  'nsfw',
  'impersonation',
  'other',
] as const;
export type ReportCategory = (typeof REPORT_CATEGORIES)[number];
export const reportCategorySchema = z.enum(REPORT_CATEGORIES);

export const REPORT_COMMENT_MAX = 1000;
/** Posts one report may name (an app's report names several posts of one person). */
export const REPORT_POSTS_MAX = 20;

/** What a moderator may do about a report (the admin pages, the admin API and the CLI). */
export const REPORT_ACTIONS = [
  'dismiss',
  'delete-post',
  'suspend-user',
  'silence-user',
  'mute-node',
  'block-node',
] as const;
export type ReportAction = (typeof REPORT_ACTIONS)[number];

/** Who may join a node: anyone, after approval, or by invite link only. */
export const REGISTRATION_MODES = ['open', 'approval', 'invite'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

/** The `node_settings` key of the registrations mode (the admin sets it, sign-up reads it). */
export const REGISTRATION_MODE_KEY = 'registrations.mode';

/**
 * SHA-256 (base64url) of an invite code, trimmed: only this is stored. One rule for the admin
 * who creates an invite (domain) and the sign-up that uses it (auth).
 */
export function hashInviteCode(code: string): Promise<string> {
  return sha256Base64url(code.trim());
}

/** `POST /api/swarm/reports` body. */
export const forwardedReportBodySchema = z.object({
  report: z.object({
    /** The sending node's id of the report: a repeat from the same node changes nothing. */
    id: z.string().min(1).max(100),
    /** The reported person: a user of the receiving node. */
    targetHandle: remoteHandleSchema,
    /** The reported post's id on the receiving node, when a post is reported. */
    postId: z.string().min(1).max(200).optional(),
    /**
     * Every post reported, when there are several (the first is `postId`, which a node reading
     * one post keeps): all on the receiving node, by `targetHandle`.
     */
    postIds: z.array(z.string().min(1).max(200)).min(1).max(REPORT_POSTS_MAX).optional(),
    category: reportCategorySchema,
    comment: z.string().max(REPORT_COMMENT_MAX).default(''),
    /** The node the reporter uses (the sender); the reporter stays anonymous. */
    reporterNodeDomain: domainSchema,
    timestamp: timestampSchema,
  }),
});
export type ForwardedReportBody = z.output<typeof forwardedReportBodySchema>;

export const forwardedReportResponseSchema = z.object({
  success: z.literal(true),
  reportId: z.string(),
});
