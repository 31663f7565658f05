import type { Delegation, Refusal, Result, UserAction } from '@swarm/contract';
import type { Prisma } from '@swarm/db';

// What the account's owner signs and sends (account-ownership.service.ts), shared with the
// archive's import (account-archive.ts).

/** What the browser signs: `userSignaturePayload({ action, targetDomain, body })`. */
export interface PreparedStatement {
  action: UserAction;
  targetDomain: string;
  body: Record<string, unknown>;
}

export interface SignedStatement {
  body: Record<string, unknown>;
  signature: string;
  /**
   * Present when an app's key signed a post's deletion (`appDelegations.signInteraction`): the
   * person's delegation, sent as the statement's `delegation` member, inside what the key signed.
   */
  delegation?: Delegation | undefined;
}

export interface ImportInput {
  /** The archive as uploaded (JSON text). */
  archiveText: string;
  /** The importer's proof of holding the archive's key: action `import`, this node, `{ archiveSignature }`. */
  proof: string;
  /**
   * argon2id hash of the password (the one the key backup is encrypted with): asked for only
   * once the archive passed the cheap checks and the rate limit (hashing is the costly part).
   */
  hashPassword: () => Promise<string>;
  /** The importer's address: imports create accounts, limited like sign-ups per address. */
  clientIp: string;
  /**
   * The node's registrations mode, applied inside the import's transaction as for a sign-up
   * (auth's `admitSignUp`, given by the edge: domain does not depend on auth): an import is a
   * new account here, so approval and invites hold for it too.
   */
  admit: (tx: Prisma.TransactionClient) => Promise<ImportAdmission>;
}

/** What the registrations mode says of an import (the shape of auth's `Admission`). */
export type ImportAdmission = Result<
  { pending: boolean; reason: string | null },
  Refusal<'FORBIDDEN'>
>;
