import { createInboundMessages } from './message-inbound.ts';
import { createOutboundMessages } from './message-outbound.ts';
import { createMessageReads } from './message-reads.ts';
import { createMessageSettings } from './message-settings.ts';
import { createMessageContext, type MessageServiceDeps } from './message-support.ts';
import type { MessageService } from './message-types.ts';

export {
  CONVERSATIONS_MAX,
  THREAD_PAGE,
  UNSUPPORTED_REASON,
  type MessageServiceDeps,
} from './message-support.ts';

/**
 * Direct messages (issue #5, docs/protocol.md "Direct messages"). The node stores and relays
 * signed envelopes of ciphertext; the browser does all cryptography. It checks what it can
 * without the text: shapes, who speaks for whom, the sender's signature under the did pinned
 * for the sender, the recipient's privacy and blocks (`checkAcceptance`, one rule for local and
 * remote senders), idempotency by message id. Remote deliveries go through the durable outbox
 * (kinds `message` and `receipt`).
 *
 * One service over four use cases: inbound (`message-inbound.ts`: relay and receipts from other
 * nodes), outbound (`message-outbound.ts`: sending, receipts, recipient look-up and capability
 * probing), reads (`message-reads.ts`) and settings (`message-settings.ts`: key setup, blocks,
 * privacy).
 */
export function createMessageService(deps: MessageServiceDeps): MessageService {
  const ctx = createMessageContext(deps);
  const { sendResult, ...reads } = createMessageReads(ctx);
  return {
    ...createInboundMessages(ctx),
    ...createOutboundMessages(ctx, sendResult),
    ...reads,
    ...createMessageSettings(ctx, reads.me),
  };
}
