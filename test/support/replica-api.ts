// Requests to API replicas in turn, each as a named user (an API key each): what the contract
// tests of DeerFlow's routes share, so that every request may land on another replica.
import { expect } from 'vitest';

export interface Answer {
  status: number;
  // DeerFlow's fields, read by name in the tests.
  body: any;
}

/**
 * `call` answers whatever the replica answered; `ok` expects a 200 and gives its body. Routes are
 * relative to `prefix` (e.g. `/api`); `replicas` is read at each call (it is filled in beforeAll).
 */
export function replicaApi<Who extends string>(keys: Readonly<Record<Who, string>>, replicas: () => readonly string[], prefix = '') {
  let turn = 0;
  /** To the replica at `index` (modulo their number), whoever's turn it is. */
  async function callOn(index: number, who: Who, method: string, route: string, body?: unknown): Promise<Answer> {
    const all = replicas();
    const base = all[index % all.length] as string;
    const res = await fetch(`${base}${prefix}${route}`, {
      method,
      headers: { 'x-api-key': keys[who], ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  }
  const call = (who: Who, method: string, route: string, body?: unknown): Promise<Answer> => callOn(turn++, who, method, route, body);
  async function ok(who: Who, method: string, route: string, body?: unknown): Promise<Answer['body']> {
    const answer = await call(who, method, route, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  }
  /** The next replica in turn, for a request the helpers do not make (a multipart upload). */
  const next = (): string => {
    const all = replicas();
    return all[turn++ % all.length] as string;
  };
  return { call, callOn, ok, next };
}

/** A refusal: `status` with a `{detail}` sentence, equal to or matching `detail` when given. */
export function expectDetail(answer: Answer, status: number, detail?: string | RegExp): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(typeof answer.body.detail).toBe('string');
  if (typeof detail === 'string') expect(answer.body.detail).toBe(detail);
  else if (detail) expect(answer.body.detail).toMatch(detail);
}
