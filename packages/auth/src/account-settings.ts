import { isHttpUrl, ok, type Refusal, type Result } from '@swarm/contract';
import type { Db } from '@swarm/db';
import { checkDisplayName, invalid, notFound } from './account-checks.ts';
import type { UserSettings } from './types.ts';

// The profile fields a user edits on /settings.

export const BIO_MAX_LENGTH = 500;

export interface SettingsInput {
  displayName: string;
  bio: string;
  /** "" clears a URL. */
  avatarUrl: string;
  headerUrl: string;
  website: string;
  isNsfw: boolean;
  showNsfw: boolean;
  /** Left as it is when absent (forms and apps that do not show the switch). */
  isBot?: boolean | undefined;
}

export interface AccountSettings {
  settings(userId: string): Promise<Result<UserSettings, Refusal>>;
  updateSettings(userId: string, input: SettingsInput): Promise<Result<UserSettings, Refusal>>;
}

/** Selects exactly the `UserSettings` of a user row. */
const SETTINGS_SELECT = {
  handle: true,
  displayName: true,
  bio: true,
  avatarUrl: true,
  headerUrl: true,
  website: true,
  isNsfw: true,
  showNsfw: true,
  isBot: true,
} as const satisfies Record<keyof UserSettings, true>;

const URL_LABELS = { avatarUrl: 'Avatar URL', headerUrl: 'Header URL', website: 'Website' };

export function settingsService(deps: { db: Db }): AccountSettings {
  const { prisma } = deps.db;
  return {
    async settings(userId) {
      const row = await prisma.user.findUnique({ where: { id: userId }, select: SETTINGS_SELECT });
      return row ? ok(row) : notFound();
    },

    async updateSettings(userId, input) {
      const current = await prisma.user.findUnique({
        where: { id: userId },
        select: { handle: true },
      });
      if (!current) return notFound();
      const displayName = checkDisplayName(input.displayName, current.handle);
      if (!displayName.ok) return displayName;
      const bio = (input.bio ?? '').trim();
      if (bio.length > BIO_MAX_LENGTH) {
        return invalid('bio', `Bio may have at most ${BIO_MAX_LENGTH} characters.`);
      }
      const urls: Record<keyof typeof URL_LABELS, string | null> = {
        avatarUrl: null,
        headerUrl: null,
        website: null,
      };
      for (const field of ['avatarUrl', 'headerUrl', 'website'] as const) {
        const value = (input[field] ?? '').trim();
        if (value !== '' && !isHttpUrl(value)) {
          return invalid(
            field,
            `${URL_LABELS[field]} must be an http(s) URL of at most 2048 characters.`,
          );
        }
        urls[field] = value === '' ? null : value;
      }
      const row = await prisma.user.update({
        where: { id: userId },
        data: {
          displayName: displayName.value,
          bio,
          ...urls,
          isNsfw: Boolean(input.isNsfw),
          showNsfw: Boolean(input.showNsfw),
          ...(input.isBot === undefined ? {} : { isBot: Boolean(input.isBot) }),
        },
        select: SETTINGS_SELECT,
      });
      return ok(row);
    },
  };
}
