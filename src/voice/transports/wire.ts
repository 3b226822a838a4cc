/**
 * What every transport does to the bytes on a call socket: text frames as strings, binary frames
 * as PCM16 (an odd byte split across frames is carried, never dropped), cancellation and errors
 * that name the provider and never carry its key.
 */
import type { RawData } from 'ws';
import { pcmFromBytes } from '../../audio/pcm.js';

/** A socket message's bytes, whether ws hands them over whole or as fragments. */
export const rawBytes = (data: RawData): Buffer =>
  Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);

export const rawText = (data: RawData): string => rawBytes(data).toString('utf8');

/** A text frame as a JSON object, or null when it is not one. */
export function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Little-endian PCM16 from consecutive binary frames. A frame of odd length leaves its last byte
 * for the next one, so a provider that cuts its stream anywhere still decodes sample-aligned.
 */
export class Pcm16Stream {
  private carry: number | null = null;

  push(bytes: Uint8Array): Int16Array {
    let whole: Uint8Array = bytes;
    if (this.carry !== null) {
      whole = new Uint8Array(bytes.length + 1);
      whole[0] = this.carry;
      whole.set(bytes, 1);
      this.carry = null;
    }
    if (whole.length % 2 === 1) this.carry = whole[whole.length - 1]!;
    // A copy: the loop keeps the samples, and they must not alias the socket's buffer.
    return pcmFromBytes(whole).slice();
  }
}

/** What a cancelled dial throws: an `AbortError` naming the provider, the signal's reason as cause. */
export function cancelled(signal: AbortSignal, provider: string): Error {
  const err = new Error(`${provider}: dialling was cancelled`, { cause: signal.reason });
  err.name = 'AbortError';
  return err;
}

/** `work`, or the cancellation as soon as `signal` aborts (the work itself is left to settle). */
export function unlessAborted<T>(
  work: Promise<T>,
  signal: AbortSignal,
  provider: string,
): Promise<T> {
  if (signal.aborted) return Promise.reject(cancelled(signal, provider));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelled(signal, provider));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/** `text` with every occurrence of the secret masked, for messages built from what a server said. */
export function withoutSecret(text: string, secret: string): string {
  return secret ? text.split(secret).join('***') : text;
}
