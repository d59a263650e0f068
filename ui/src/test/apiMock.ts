import { vi } from 'vitest';

export type Reply = [status: number, body: unknown] | ((body: unknown) => [number, unknown]);

export interface Call {
  method: string;
  url: string;
  body: unknown;
}

/**
 * Stubs fetch with answers chosen by "METHOD /path" (the api client's URL), and records each
 * call with its parsed JSON body. An unknown request answers 404 so a test sees it fail.
 */
export function mockApi(routes: Record<string, Reply | Reply[]>) {
  const calls: Call[] = [];
  const queues = new Map(Object.entries(routes).map(([key, reply]) => [key, Array.isArray(reply) && typeof reply[0] !== 'number' ? [...(reply as Reply[])] : [reply as Reply]]));
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    calls.push({ method, url, body });
    const queue = queues.get(`${method} ${url}`);
    const reply = queue && (queue.length > 1 ? queue.shift() : queue[0]);
    if (!reply) return new Response(JSON.stringify({ succeeded: false, error: `no mock for ${method} ${url}` }), { status: 404 });
    const [status, payload] = typeof reply === 'function' ? reply(body) : reply;
    return new Response(JSON.stringify(payload), { status });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock, callsTo: (method: string, url: string) => calls.filter((c) => c.method === method && c.url === url) };
}

export const ok = (data: unknown): [number, unknown] => [200, { succeeded: true, data }];
export const created = (data: unknown): [number, unknown] => [201, { succeeded: true, data }];
export const fail = (status: number, error: string, field?: string): [number, unknown] => [
  status,
  { succeeded: false, data: null, error, ...(field ? { field } : {}) },
];
