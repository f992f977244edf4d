import { describe, expect, it } from 'vitest';
import {
  chatTools,
  chatToolSpecs,
  ChatToolError,
  findTool,
  mcpTools,
  parseToolArgs,
  tools,
} from '../../src/services/tools/index.js';

// The registry's invariants, over every entry: what the model is offered, how arguments are read and refused.
describe('tool registry', () => {
  it('names each tool once, and offers the model every tool as a closed JSON Schema object', () => {
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    expect(chatToolSpecs.map((s) => s.name)).toEqual(tools.filter((t) => t.runs !== 'mcp').map((t) => t.name));
    expect(chatToolSpecs.map((s) => s.name)).toEqual(chatTools.map((t) => t.name));
    for (const spec of chatToolSpecs) {
      expect(spec.description.length, spec.name).toBeGreaterThan(0);
      expect(spec.parameters, spec.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(spec.parameters).not.toHaveProperty('$schema');
    }
  });

  it('describes every argument for the model', () => {
    for (const spec of chatToolSpecs) {
      for (const [field, schema] of Object.entries(
        (spec.parameters.properties ?? {}) as Record<string, { description?: string }>,
      )) {
        expect(schema.description, `${spec.name}.${field}`).toBeTruthy();
      }
    }
  });

  it('MCP serves every tool with an MCP part; each answers without a conversation, and MCP-only tools stay out of the chat', () => {
    for (const tool of mcpTools) {
      // A tool that needs a conversation or a child workflow in the chat answers over MCP with its own answer.
      if (tool.runs !== 'activity') expect(tool.mcp?.answer, tool.name).toBeTypeOf('function');
    }
    // The chat tools MCP serves too (test/api/mcp.test.ts checks the whole list a client sees).
    expect(mcpTools.filter((t) => t.runs !== 'mcp').map((t) => t.name)).toEqual([
      'list_applications',
      'list_test_plans',
      'list_test_cases',
      'get_test_case',
      'create_test_case',
      'list_runs',
      'start_discovery',
      'discovery_map',
      'uncovered',
    ]);
    for (const tool of tools.filter((t) => t.runs === 'mcp')) expect(findTool(tool.name), tool.name).toBeUndefined();
  });

  it('reads null and empty strings as absent, as models send them for fields they leave out', () => {
    expect(parseToolArgs(findTool('list_test_cases')!, { applicationShortId: null })).toEqual({});
    expect(
      parseToolArgs(findTool('create_test_case')!, {
        applicationShortId: 'app_k3x9',
        name: ' Login ',
        goal: 'Sign in',
        expectedResult: '',
      }),
    ).toEqual({
      applicationShortId: 'app_k3x9',
      name: 'Login',
      goal: 'Sign in',
    });
  });

  it('refuses bad arguments in words naming the fields, as the REST API does', () => {
    const refusal = (name: string, args: Record<string, unknown>) => {
      try {
        parseToolArgs(findTool(name)!, args);
      } catch (err) {
        expect(err).toBeInstanceOf(ChatToolError);
        return (err as Error).message;
      }
      throw new Error(`${name} accepted ${JSON.stringify(args)}`);
    };
    expect(refusal('get_test_case', {})).toMatch(/^testCaseId: /);
    expect(refusal('get_test_case', { testCaseId: 'not-a-uuid' })).toMatch(/^testCaseId: /);
    expect(refusal('create_test_case', { applicationShortId: 'shop', name: 'x', goal: 'y' })).toMatch(
      /^applicationShortId: must be a application short id/,
    );
    expect(refusal('create_test_case', { applicationShortId: 'app_k3x9', name: 'x'.repeat(81), goal: 'y' })).toMatch(
      /^name: /,
    );
    expect(refusal('run_tests', { testCaseIds: 'all' })).toMatch(/^testCaseIds: /);
    expect(refusal('get_run_results', { runShortId: 'pln_1' })).toMatch(/^runShortId: /);
  });
});
