/**
 * The socket of one live call and its lifecycle, shared by every transport: opening it within
 * the dial's deadline, telling the loop once how the far side ended it (a clean close is the
 * agent hanging up, anything else a drop), hanging up from our side, and never letting a socket
 * error reach the process.
 */
import WebSocket, { type RawData } from 'ws';
import { guardedSocketOptions } from '../../net/guard.js';
import { ProviderError } from '../../providers/client.js';
import {
  AGENT_MESSAGE_MAX_BYTES,
  AGENT_MESSAGE_TOO_LARGE,
  isMessageTooLarge,
  type AgentAudioEvents,
} from '../transport.js';
import { CONNECT_TIMEOUT_MS } from './http.js';
import { cancelled, withoutSecret } from './wire.js';

export interface OpenSocketOptions {
  provider: string;
  url: string;
  headers?: Record<string, string>;
  signal: AbortSignal;
  /** The key: masked out of any message built from the socket's errors. */
  secret: string;
}

function openFailure(provider: string, err: Error, secret: string): ProviderError {
  const why = withoutSecret(err.message, secret);
  const status = /Unexpected server response: (\d+)/.exec(why)?.[1];
  if (status === '401' || status === '403')
    return new ProviderError(
      'auth',
      `${provider} refused the call socket (${status})`,
      Number(status),
    );
  return new ProviderError('unavailable', `${provider} call socket could not be opened: ${why}`);
}

/**
 * Sockets on which the far side sent a message over AGENT_MESSAGE_MAX_BYTES. ws refuses it (an
 * error, then a 1009 close): noted from the first moment, since it may come in the same read as
 * the upgrade, before the call line listens.
 */
const oversized = new WeakSet<WebSocket>();

/** Whether the far side sent a message over AGENT_MESSAGE_MAX_BYTES on `socket`. */
export const sentTooLarge = (socket: WebSocket): boolean => oversized.has(socket);

export type SocketListener = (data: RawData, isBinary: boolean) => void;

/** An open call socket, and its messages for whoever listens first. */
export interface OpenedSocket {
  socket: WebSocket;
  /**
   * Starts delivering messages to `listener`, those that arrived before it first: a far side
   * that speaks right after the upgrade (in the same read as its answer) loses nothing.
   */
  listen: (listener: SocketListener) => void;
}

function heldMessages(socket: WebSocket): OpenedSocket['listen'] {
  const held: [RawData, boolean][] = [];
  const hold: SocketListener = (data, isBinary) => held.push([data, isBinary]);
  socket.on('message', hold);
  return (listener) => {
    socket.off('message', hold);
    for (const [data, isBinary] of held.splice(0)) listener(data, isBinary);
    socket.on('message', listener);
  };
}

/** The call socket, open; a timeout, a refusal or the signal rejects with the provider named. */
export async function openSocket(opts: OpenSocketOptions): Promise<OpenedSocket> {
  const { provider, signal } = opts;
  if (signal.aborted) throw cancelled(signal, provider);
  const socket = new WebSocket(opts.url, {
    headers: opts.headers,
    handshakeTimeout: CONNECT_TIMEOUT_MS,
    // ws would take 100 MiB in one message (and as much inflated from a compressed one).
    maxPayload: AGENT_MESSAGE_MAX_BYTES,
    ...guardedSocketOptions(opts.url),
  });
  // Always listened to: an error after the dial is the call line's to report, never a crash.
  socket.on('error', (err) => {
    if (isMessageTooLarge(err)) oversized.add(socket);
  });
  const listen = heldMessages(socket);
  await new Promise<WebSocket>((resolve, reject) => {
    let settled = false;
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (!err) return resolve(socket);
      socket.terminate();
      reject(err);
    };
    const timer = setTimeout(
      () =>
        settle(
          new ProviderError(
            'unavailable',
            `${provider} did not open the call socket within ${CONNECT_TIMEOUT_MS / 1000} s`,
          ),
        ),
      CONNECT_TIMEOUT_MS,
    );
    const onAbort = () => settle(cancelled(signal, provider));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('open', () => settle(null));
    socket.once('error', (err) => settle(openFailure(provider, err, opts.secret)));
    socket.once('close', (code) =>
      settle(
        new ProviderError(
          'unavailable',
          `${provider} closed the call socket before it opened (${code})`,
        ),
      ),
    );
  });
  return { socket, listen };
}

/** Close codes that mean the far side ended the call on purpose (1005: closed without a code). */
const CLEAN_CLOSE = new Set([1000, 1005]);

export interface CallLineOptions {
  provider: string;
  events: AgentAudioEvents;
  secret: string;
}

/** One open call socket: what may still be sent, and how the call ended. */
export class CallLine {
  private state: 'live' | 'closing' | 'over' = 'live';
  private lastError: string | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly cleanups: (() => void)[] = [];
  private readonly closed: Promise<void>;

  constructor(
    readonly socket: WebSocket,
    private readonly opts: CallLineOptions,
  ) {
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('error', (err) => {
      if (isMessageTooLarge(err)) return this.agentMisbehaved(AGENT_MESSAGE_TOO_LARGE);
      this.lastError = withoutSecret(err.message, opts.secret);
    });
    socket.on('close', (code, reason) => this.farSideClosed(code, reason.toString('utf8')));
    // Refused in the same read as the upgrade, before this line listened.
    if (sentTooLarge(socket)) this.agentMisbehaved(AGENT_MESSAGE_TOO_LARGE);
  }

  /** True while the call is up and neither side has ended it: events are still delivered. */
  get live(): boolean {
    return this.state === 'live' && this.socket.readyState === WebSocket.OPEN;
  }

  /** Sends while the call is live; a no-op once it has ended. */
  send(data: Buffer | string): void {
    if (this.live) this.socket.send(data);
  }

  /** Runs `fn` after `ms` unless the call has ended by then. */
  later(ms: number, fn: () => void): void {
    if (this.state === 'over') return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.live) fn();
    }, ms);
    this.timers.add(timer);
  }

  /** Runs once the call is over, however it ended (timers, resamplers, pending marks). */
  whenOver(fn: () => void): void {
    this.cleanups.push(fn);
  }

  /** The far side ended the call by a protocol message: reported once, then the socket closed. */
  agentHungUp(detail: string): void {
    if (this.state !== 'live') return;
    this.finish();
    this.opts.events.ended('agent_hangup', detail);
    void this.closeSocket();
  }

  /**
   * The far side broke a limit: the call ends at once with `error` as its reason, and the socket
   * is cut rather than closed (an agent flooding us is not waited on for a close handshake).
   */
  agentMisbehaved(error: string): void {
    const wasLive = this.state === 'live';
    this.finish();
    if (wasLive) this.opts.events.ended('misbehaved', error);
    this.socket.terminate();
  }

  /** Ends the call from our side: `lastWords` (the protocol's hang-up message), then a clean close. */
  async hangup(lastWords?: string): Promise<void> {
    if (this.state === 'live') {
      this.state = 'closing';
      if (lastWords !== undefined && this.socket.readyState === WebSocket.OPEN)
        this.socket.send(lastWords);
    }
    await this.closeSocket();
  }

  private farSideClosed(code: number, reason: string): void {
    const wasLive = this.state === 'live';
    this.finish();
    if (!wasLive) return;
    const { provider, events } = this.opts;
    const said = reason ? `: ${withoutSecret(reason, this.opts.secret)}` : '';
    if (CLEAN_CLOSE.has(code))
      events.ended('agent_hangup', `${provider} ended the call (${code}${said})`);
    else
      events.ended(
        'dropped',
        `${provider} connection dropped (${code}${said})${this.lastError ? `: ${this.lastError}` : ''}`,
      );
  }

  private finish(): void {
    if (this.state === 'over') return;
    this.state = 'over';
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const fn of this.cleanups.splice(0)) fn();
  }

  private async closeSocket(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    this.socket.close(1000);
    let timer: NodeJS.Timeout | undefined;
    const giveUp = new Promise<void>((resolve) => {
      // A far side that never answers the close handshake is cut off after a second.
      timer = setTimeout(() => {
        this.socket.terminate();
        resolve();
      }, 1000);
    });
    await Promise.race([this.closed, giveUp]);
    clearTimeout(timer);
  }
}
