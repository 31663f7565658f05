import { prepareTestTemplates } from './index.ts';

/** Vitest's globalSetup for the files that open databases or start nodes. */
export default async function setup(): Promise<void> {
  await prepareTestTemplates();
}
