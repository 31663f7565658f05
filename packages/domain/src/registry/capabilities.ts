/**
 * A node's capabilities as stored in `swarm_nodes.capabilities` (a JSON list in a text column,
 * as its node info gave it): the strings of the list; anything unreadable counts as none.
 */
export function parseCapabilities(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}
