import { z } from 'zod';
import {
  encryptionPublicKeySchema,
  exactTimestampSchema,
  messagePrivacySchema,
  signatureSchema,
} from '@swarm/contract';
import { humaneInput } from './input.ts';
import { unwrap } from './refusals.ts';
import { protectedProcedure, router } from './trpc.ts';

/**
 * Direct messages (issue #5). The browser does all cryptography (packages/contract
 * message-crypto.ts): it seals and signs envelopes, verifies and opens them, signs receipts.
 * The node checks and stores ciphertext, applies privacy and blocks, and relays to other nodes.
 * Envelopes and receipts are passed as received: the node validates them against the wire
 * schemas itself, because signatures cover their exact JSON.
 */

const address = z
  .string()
  .trim()
  .min(1, 'the address is empty')
  .max(320, 'the address is too long');
/** A signed object as the browser made it; shape-checked by the service (exact JSON matters). */
const signedObject = z.record(z.string(), z.unknown());

export const messagesRouter = router({
  /** Who can I write to: their did and published encryption key, and whether they accept. */
  recipient: protectedProcedure
    .input(humaneInput(z.object({ address })))
    .query(async ({ ctx, input }) =>
      unwrap(await ctx.node.messages.recipient(ctx.user.id, input.address)),
    ),

  /** My address, did, encryption key (null: not made yet) and privacy setting. */
  me: protectedProcedure.query(async ({ ctx }) => unwrap(await ctx.node.messages.me(ctx.user.id))),

  /** Publishes my encryption key (signed by my signing key) with the v2 key backup. */
  setEncryptionKey: protectedProcedure
    .input(
      humaneInput(
        z.object({
          publicKey: encryptionPublicKeySchema,
          createdAt: exactTimestampSchema,
          signature: signatureSchema,
          encryptedKeyBackup: z.string().min(1, 'the key backup is missing'),
        }),
      ),
    )
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.messages.setEncryptionKey(ctx.user.id, input)),
    ),

  /** Sends a sealed, signed envelope; idempotent by its id. */
  send: protectedProcedure
    .input(humaneInput(z.object({ envelope: signedObject })))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.messages.send(ctx.user.id, input.envelope)),
    ),

  /** Newest conversation first, with its last envelope and unread count. */
  conversations: protectedProcedure.query(async ({ ctx }) =>
    unwrap(await ctx.node.messages.conversations(ctx.user.id)),
  ),

  /** Incoming messages not read yet (nav badge). */
  unreadCount: protectedProcedure.query(({ ctx }) => ctx.node.messages.unreadCount(ctx.user.id)),

  /** One conversation, oldest first; `before` pages back (the answer's `olderCursor`). */
  thread: protectedProcedure
    .input(
      humaneInput(
        z.object({
          with: address,
          before: z.string().max(64, 'before is too long').nullish(),
        }),
      ),
    )
    .query(async ({ ctx, input }) => unwrap(await ctx.node.messages.thread(ctx.user.id, input))),

  /** A delivered/read receipt signed by my browser for a message sent to me. */
  receipt: protectedProcedure
    .input(humaneInput(z.object({ receipt: signedObject })))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.messages.receipt(ctx.user.id, input.receipt)),
    ),

  block: protectedProcedure
    .input(humaneInput(z.object({ address })))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.messages.block(ctx.user.id, input.address)),
    ),

  unblock: protectedProcedure
    .input(humaneInput(z.object({ address })))
    .mutation(async ({ ctx, input }) =>
      unwrap(await ctx.node.messages.unblock(ctx.user.id, input.address)),
    ),

  blocks: protectedProcedure.query(({ ctx }) => ctx.node.messages.blocks(ctx.user.id)),

  /** Who may message me: everyone, people I follow, nobody. */
  setPrivacy: protectedProcedure
    .input(humaneInput(z.object({ messagePrivacy: messagePrivacySchema })))
    .mutation(async ({ ctx, input }) => ({
      messagePrivacy: unwrap(await ctx.node.messages.setPrivacy(ctx.user.id, input.messagePrivacy)),
    })),
});
