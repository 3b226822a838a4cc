import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestServer } from './server.js';

export interface LocalServer {
  url: string;
  stop(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 answering with `handler`: an agent at its own URL, or a target. */
export async function startLocalServer(handler: RequestListener): Promise<LocalServer> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A loopback URL where nothing listens: the port was just freed, so connections are refused. */
export async function refusedUrl(): Promise<string> {
  const server = await startLocalServer(() => {});
  await server.stop();
  return server.url;
}

/** Connects an agent at its own URL (the http provider, `simple` format); answers its id. */
export async function connectHttpAgent(
  s: TestServer,
  name: string,
  url: string,
  apiKey?: string,
): Promise<string> {
  const res = await s.call('POST', '/v1/agents/connect', {
    provider: 'http',
    agent_id: name,
    credentials: { base_url: url, ...(apiKey ? { api_key: apiKey } : {}) },
  });
  return res.body.id as string;
}

/** A persona of the test server's first workspace; answers its id. */
export async function createPersona(
  s: TestServer,
  name: string,
  prompt = 'Calm.',
): Promise<string> {
  return (await s.ws('POST', '/personas', { name, prompt })).body.data.persona.id as string;
}
