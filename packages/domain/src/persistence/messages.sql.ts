import { Prisma } from '@swarm/db';
import { sqlStatement } from './catalog.ts';

// Direct messages (`messages`, `user_blocks`): the raw statements of messages/.

/**
 * The latest message of each of a user's conversations (keyed by the other person's address);
 * incoming messages of people the user blocked are left out, their own stay.
 */
export const latestPerConversationSql = sqlStatement(
  'messages.latestPerConversation',
  ['00000000-0000-4000-8000-000000000000'],
  (userId: string) => Prisma.sql`
    SELECT DISTINCT ON (other) other, id::text AS id, created_at, envelope FROM (
      SELECT CASE WHEN local_sender_id = ${userId}::uuid THEN recipient_address
                  ELSE sender_address END AS other, id, created_at, envelope
      FROM messages
      WHERE local_sender_id = ${userId}::uuid
         OR (local_recipient_id = ${userId}::uuid
             AND NOT EXISTS (SELECT 1 FROM user_blocks b
                             WHERE b.user_id = ${userId}::uuid
                               AND b.blocked_address = messages.sender_address))
    ) m
    ORDER BY other, created_at DESC, id DESC`,
);
