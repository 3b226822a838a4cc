import autocannon from 'autocannon';

/**
 * The load of one throughput sample, run in a process of its own so that the client's work (HTTP
 * parsing, bookkeeping) does not share the event loop of the servers being compared. Reads its
 * plan as JSON from argv and prints {rps, non2xx, errors}.
 */
export interface LoadPlan {
  url: string;
  headers: Record<string, string>;
  seconds: number;
  /** Keep-alive connections (default 10). */
  connections?: number;
  /** Every request asks for another page: `path` plus `&offset=` stepping by `stride` mod `modulo`. */
  pages?: { path: string; stride: number; modulo: number };
}

const plan = JSON.parse(process.argv[2]!) as LoadPlan;
let n = 0;
const pages = plan.pages;
const result = await autocannon({
  url: plan.url,
  headers: plan.headers,
  connections: plan.connections ?? 10,
  duration: plan.seconds,
  pipelining: 1,
  requests: pages
    ? [
        {
          setupRequest: (req: autocannon.Request) => ({
            ...req,
            path: `${pages.path}${pages.path.includes('?') ? '&' : '?'}offset=${(n++ * pages.stride) % pages.modulo}`,
          }),
        },
      ]
    : undefined,
});
console.log(
  JSON.stringify({ rps: result.requests.average, non2xx: result.non2xx, errors: result.errors }),
);
