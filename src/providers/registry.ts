import { blandAdapter } from './bland.js';
import type { RetryPolicy } from './client.js';
import { elevenLabsAdapter } from './elevenlabs.js';
import { retellAdapter } from './retell.js';
import type { ProviderAdapter } from './types.js';
import { vapiAdapter } from './vapi.js';

export const PROVIDERS = ['vapi', 'retell', 'elevenlabs', 'bland'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export function createAdapters(policy?: RetryPolicy): Record<ProviderName, ProviderAdapter> {
  return {
    vapi: vapiAdapter(policy),
    retell: retellAdapter(policy),
    elevenlabs: elevenLabsAdapter(policy),
    bland: blandAdapter(policy),
  };
}
