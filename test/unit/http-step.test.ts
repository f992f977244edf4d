import { describe, expect, it } from 'vitest';
import { accessView, mergeAccess, type EnvironmentAccess } from '../../src/domain/environment-access.js';
import { httpStepProblem, jsonText, parseJsonPath, readJsonPath } from '../../src/domain/http-step.js';
import { httpStepFromArgs } from '../../src/browser/steps/http.js';

describe('http_request JSON paths', () => {
  const doc = { note: { id: 'N-1', tags: ['a', 'b'], 'with space': 3, nested: [{ ok: true }] }, total: 0, empty: null };

  it.each([
    ['$', doc],
    ['$.note.id', 'N-1'],
    ['$.note.tags[1]', 'b'],
    ['$.note["with space"]', 3],
    ['$.note.nested[0].ok', true],
    ['$.total', 0],
    ['$.empty', null],
  ])('reads %s', (path, value) => {
    expect(readJsonPath(doc, path)).toEqual({ found: true, value });
  });

  it.each(['$.missing', '$.note.tags[2]', '$.note.id.length', '$.empty.x', '$.note.tags.0'])(
    'finds nothing at %s',
    (path) => {
      expect(readJsonPath(doc, path).found).toBe(false);
    },
  );

  it.each(['note.id', '$..id', '$.note[*]', '$.note.', '$[-1]'])('refuses the path %s', (path) => {
    expect(parseJsonPath(path)).toBeUndefined();
  });

  it('compares and saves strings as they are and everything else as JSON', () => {
    expect([jsonText('N-1'), jsonText(3), jsonText(true), jsonText(null), jsonText({ a: 1 })]).toEqual([
      'N-1',
      '3',
      'true',
      'null',
      '{"a":1}',
    ]);
  });

  it('says what is wrong with a step definition', () => {
    expect(httpStepProblem({ method: 'GET', url: '/x' })).toBeUndefined();
    expect(httpStepProblem({ method: 'FETCH' as 'GET', url: '/x' })).toMatch(/method/);
    expect(httpStepProblem({ method: 'GET', url: '/x', status: 42 })).toMatch(/status/);
    expect(httpStepProblem({ method: 'GET', url: '/x', json: [{ path: 'id', equals: '1' }] })).toMatch(
      /simple JSON path/,
    );
    expect(httpStepProblem({ method: 'GET', url: '/x', save: [{ name: 'not a name', path: '$.id' }] })).toMatch(
      /variable name/,
    );
  });
});

describe('environment access writes', () => {
  const stored: EnvironmentAccess = {
    httpCredentials: { username: 'qa', password: 'pw' },
    headers: [{ name: 'X-Bypass', value: 'tok', isSecret: true }],
    cookies: [{ name: 'consent', value: 'yes', isSecret: false }],
  };

  it('keeps a stored secret when an entry of the same name comes without a value', () => {
    expect(
      mergeAccess(stored, {
        headers: [
          { name: 'x-bypass', isSecret: true },
          { name: 'X-Team', value: 'qa' },
        ],
      }),
    ).toEqual({
      ...stored,
      headers: [
        { name: 'x-bypass', value: 'tok', isSecret: true },
        { name: 'X-Team', value: 'qa', isSecret: false },
      ],
    });
    expect(mergeAccess(stored, { httpCredentials: { username: 'dev' } })).toMatchObject({
      httpCredentials: { username: 'dev', password: 'pw' },
    });
  });

  it('keeps a stored secret secret when an entry keeps its value, whatever isSecret says; a new value may be plain', () => {
    for (const isSecret of [false, undefined]) {
      const merged = mergeAccess(stored, { headers: [{ name: 'x-bypass', isSecret }] }) as EnvironmentAccess;
      expect(merged.headers).toEqual([{ name: 'x-bypass', value: 'tok', isSecret: true }]);
      expect(JSON.stringify(accessView(merged))).not.toContain('"tok"');
    }
    expect(
      (mergeAccess(stored, { headers: [{ name: 'x-bypass', value: 'public', isSecret: false }] }) as EnvironmentAccess)
        .headers,
    ).toEqual([{ name: 'x-bypass', value: 'public', isSecret: false }]);
  });

  it('refuses a new entry without a value, and removes credentials on null', () => {
    expect(mergeAccess(stored, { cookies: [{ name: 'other' }] })).toMatch(/"other" needs a value/);
    expect(mergeAccess(null, { httpCredentials: { username: 'qa' } })).toMatch(/password: required/);
    expect(mergeAccess(stored, { httpCredentials: null })).not.toHaveProperty('httpCredentials');
  });

  it('never shows a secret value in the view', () => {
    expect(JSON.stringify(accessView(stored))).not.toMatch(/"pw"|"tok"/);
    expect(accessView(null)).toEqual({ httpCredentials: null, headers: [], cookies: [] });
  });
});

describe('the http_request tool call as a step', () => {
  it('keeps {{NAME}} in an absolute URL of the environment as a path, and a save marked secret', () => {
    const step = httpStepFromArgs(
      {
        method: 'post',
        url: 'https://shop.test/api/orders/{{ORDER_ID}}',
        body: { qty: 1 },
        save: [
          { name: 'TOKEN', path: '$.token', secret: true },
          { name: 'ID', path: '$.id' },
        ],
        expectJson: [{ path: '$.qty', equals: 1 }],
      },
      'Order',
      'https://shop.test/login',
    );
    expect(step.http).toEqual({
      method: 'POST',
      url: '/api/orders/{{ORDER_ID}}',
      body: '{"qty":1}',
      json: [{ path: '$.qty', equals: '1' }],
      save: [
        { name: 'TOKEN', path: '$.token', secret: true },
        { name: 'ID', path: '$.id' },
      ],
    });
  });

  it('refuses a call the step could not run', () => {
    expect(() =>
      httpStepFromArgs({ method: 'GET', url: '/x', save: [{ name: 'A', path: 'id' }] }, 'x', 'https://shop.test/'),
    ).toThrow(/simple JSON path/);
  });
});
