// The bound on one message from an agent's socket, here below both the providers' chat sockets
// and the voice transports, which both apply it.

/**
 * The most an agent may send in one call-socket message: far above any real audio chunk (1 MiB of
 * PCM16 at 16 kHz is half a minute), and a bound on what one message can make the engine hold.
 */
export const AGENT_MESSAGE_MAX_BYTES = 1024 * 1024;
export const AGENT_MESSAGE_TOO_LARGE = 'the agent sent a message over 1 MiB';
/** Whether a socket error is ws refusing a message over its `maxPayload` (it then closes, 1009). */
export const isMessageTooLarge = (err: Error): boolean =>
  (err as Error & { code?: string }).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';
