import type { IncomingMessage, ServerResponse } from 'node:http';

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<unknown>;

/**
 * An async request handler for node:http, which ignores what a listener returns: a handler that
 * throws answers 500 with the reason instead of leaving an unhandled rejection and a hung client.
 */
export const handled =
  (handler: Handler) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    handler(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`fake server failed: ${err instanceof Error ? err.message : String(err)}`);
    });
  };
