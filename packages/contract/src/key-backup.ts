import { err, ok, type Result } from './result.ts';

/**
 * The one rule for the encrypted key backup a browser stores on this node (sign-up, key setup,
 * password change in `@swarm/auth`; the encryption-key setup of direct messages). The node
 * cannot read it (it is encrypted with the user's password), so it checks only what it can: a
 * JSON object of bounded size. A v2 backup (signing and encryption keys, apps/web
 * `key-backup.ts`) is well under 2 KiB; the cap leaves room and bounds what a user may store.
 */
export const KEY_BACKUP_MAX_BYTES = 16 * 1024;

/**
 * `text` as the key backup to store, or why not (a sentence for the user). `version` demands
 * the backup's format version: the encryption-key setup needs version 2, the one that holds
 * the encryption key too.
 */
export function checkKeyBackup(text: unknown, options: { version?: 2 } = {}): Result<string> {
  if (typeof text !== 'string' || text.length === 0) return err('The key backup is missing.');
  if (new TextEncoder().encode(text).length > KEY_BACKUP_MAX_BYTES)
    return err(`The key backup is larger than ${KEY_BACKUP_MAX_BYTES} bytes.`);
  let backup: unknown;
  try {
    backup = JSON.parse(text);
  } catch {
    backup = null;
  }
  if (typeof backup !== 'object' || backup === null || Array.isArray(backup))
    return err('The key backup must be a JSON object.');
  if (options.version === 2 && (backup as { version?: unknown }).version !== 2)
    return err('The key backup must be version 2 (signing and encryption keys).');
  return ok(text);
}
