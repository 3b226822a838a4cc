import type { AppError } from '../errors.js';

/** Workspace paths (`/api/...`) answer in the envelope; `/v1` paths answer bare objects. */
export const usesEnvelope = (url: string): boolean => url.startsWith('/api/');

export const success = (url: string, data: unknown): unknown =>
  usesEnvelope(url) ? { success: true, data } : data;

export const failure = (url: string, err: AppError): unknown =>
  usesEnvelope(url) ? { success: false, error: err.toBody() } : { error: err.toBody() };
