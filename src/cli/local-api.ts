import { apiClient, type ApiClient } from '../client/api-client.js';
import { restRoute } from '../client/rest-route.js';

/*
 * The local API as the commands that talk to it (run, demo, compare) see it: where it is, the key
 * it takes, and each refusal or failure as one reason the command cannot do its work (exit 2).
 */

export class CannotRun extends Error {}

/** The engine refused the request: its code and details too (`suite_invalid` lists problems). */
export class Refused extends CannotRun {
  constructor(
    message: string,
    readonly code: string,
    readonly details: unknown,
  ) {
    super(message);
  }
}

interface FieldProblem {
  path: string;
  message: string;
}

/** The local API as a script sees it: each refusal or failure is a reason nothing can run. */
export function api(base: string, key: string): ApiClient {
  return apiClient({
    base,
    key,
    // The desktop app's local API serves each operation at its REST path only.
    route: restRoute,
    errors: {
      unreachable: (err) =>
        new CannotRun(
          `Callbench is not reachable at ${base} (${(err as Error).message}). Start the app or \`npm run serve\`.`,
        ),
      refused(res, body) {
        const e = body?.error;
        const details = (Array.isArray(e?.details) ? (e.details as FieldProblem[]) : [])
          .filter((d) => typeof d?.path === 'string')
          .map((d) => `\n  ${d.path}: ${d.message}`)
          .join('');
        const message = typeof e?.message === 'string' ? e.message : `HTTP ${res.status}`;
        const code = typeof e?.code === 'string' ? e.code : 'error';
        return new Refused(`${message}${details}`, code, e?.details);
      },
    },
  });
}

/** Where the engine is and the key it takes: --url and --key, else CALLBENCH_URL and _API_KEY. */
export function reachOf(values: { key?: string; url?: string }): { key: string; url: string } {
  const key = values.key ?? process.env.CALLBENCH_API_KEY;
  if (!key)
    throw new CannotRun(
      'No API key: pass --key or set CALLBENCH_API_KEY (create one with `callbench keys create`).',
    );
  return { key, url: values.url ?? process.env.CALLBENCH_URL ?? 'http://127.0.0.1:4477' };
}

/** The workspace by id or name, the first by default. */
export async function workspaceOf(client: ApiClient, workspaceRef: string | undefined) {
  const { workspaces } = await client.invoke('workspaces.list', {});
  const workspace = workspaceRef
    ? workspaces.find((w) => w.id === workspaceRef || w.name === workspaceRef)
    : workspaces[0];
  if (!workspace) throw new CannotRun(`No workspace ${workspaceRef ?? ''}`.trim());
  return workspace;
}
