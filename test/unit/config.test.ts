import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createLlm } from '../../src/llm/client.js';

describe('configuration', () => {
  it('lets `proctor dev` start with nothing set', () => {
    const config = loadConfig('dev', {});
    expect(config).toMatchObject({
      PORT: 3000,
      publicUrl: 'http://127.0.0.1:3000',
      appUrl: 'http://127.0.0.1:3000',
      allowPrivateNetworks: true,
    });
    expect(config.llm).toBeUndefined();
  });

  it('names every missing variable a production process needs', () => {
    expect(() => loadConfig('api', {})).toThrow(ConfigError);
    try {
      loadConfig('worker', {});
    } catch (err) {
      expect((err as Error).message).toMatch(/DATABASE_URL: required by `proctor worker`/);
      expect((err as Error).message).toMatch(/TEMPORAL_ADDRESS: required by `proctor worker`/);
      expect((err as Error).message).toMatch(/PROCTOR_BLOB_SECRET/);
    }
  });

  it('names an invalid variable', () => {
    expect(() => loadConfig('dev', { PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig('dev', { DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig('dev', { S3_ENDPOINT: 'http://minio:9000' })).toThrow(/S3_ACCESS_KEY/);
    expect(() => loadConfig('dev', { PROCTOR_ALLOW_PRIVATE_NETWORKS: 'maybe' })).toThrow(
      /PROCTOR_ALLOW_PRIVATE_NETWORKS/,
    );
  });

  it('refuses private networks by default outside dev and builds dashboard URLs from PROCTOR_APP_URL', () => {
    const config = loadConfig('worker', {
      DATABASE_URL: 'postgres://u@db/p',
      TEMPORAL_ADDRESS: 'temporal:7233',
      PROCTOR_BLOB_SECRET: 'x'.repeat(32),
      PROCTOR_MASTER_KEY: 'a'.repeat(64),
      PROCTOR_APP_URL: 'https://proctor.example.com/',
    });
    expect(config.allowPrivateNetworks).toBe(false);
    expect(config.appUrl).toBe('https://proctor.example.com');
  });

  it('configures the LLM only with a key', () => {
    const config = loadConfig('dev', {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      PROCTOR_LLM_MODEL: 'local',
    });
    expect(config.llm).toEqual({
      apiKey: 'sk-test',
      baseURL: 'http://127.0.0.1:9/v1',
      model: 'local',
      toolMode: 'auto',
    });
    expect(loadConfig('dev', { OPENAI_API_KEY: 'sk-test', PROCTOR_LLM_TOOL_MODE: 'text' }).llm?.toolMode).toBe('text');
    expect(() => loadConfig('dev', { OPENAI_API_KEY: 'sk-test', PROCTOR_LLM_TOOL_MODE: 'json' })).toThrow(
      /PROCTOR_LLM_TOOL_MODE/,
    );
  });

  it("sets a page's tokens per model call, or leaves the default (4,000) to the page view", () => {
    const llm = loadConfig('dev', { OPENAI_API_KEY: 'sk-test', PROCTOR_LLM_PAGE_TOKENS: '6000' }).llm;
    expect(llm?.pageTokens).toBe(6_000);
    expect(createLlm(llm)?.pageTokens).toBe(6_000);
    expect(createLlm(loadConfig('dev', { OPENAI_API_KEY: 'sk-test' }).llm)?.pageTokens).toBeUndefined();
    expect(() => loadConfig('dev', { OPENAI_API_KEY: 'sk-test', PROCTOR_LLM_PAGE_TOKENS: '100' })).toThrow(
      /PROCTOR_LLM_PAGE_TOKENS/,
    );
  });
});
