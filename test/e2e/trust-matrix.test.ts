import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPrograms } from '../../src/programs.js';
import { startScriptedLlm, type ScriptedLlm } from '../support/scripted-llm.js';
import {
  cells,
  goodBuildGroups,
  healerModel,
  matrixTable,
  page,
  runMatrix,
  serveMatrix,
  summary,
  type CellResult,
  type Matrix,
} from '../support/trust-matrix.js';

// The adversarial matrix of verdicts, generated (test/support/trust-matrix.ts; bench/trust prints it): no bad build may
// pass silently, whatever the step, however its element is found, however the build broke it; every good build
// passes with nothing reported, so the failures are the bad builds' doing and not the matrix's.

describe('verdicts you can trust: the adversarial matrix', () => {
  let browser: Browser;
  let llm: ScriptedLlm;
  let matrix: Matrix;
  let results: CellResult[];
  const all = cells();

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: loadPrograms().chromium!,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    [llm, matrix] = await Promise.all([startScriptedLlm(), serveMatrix(all)]);
    llm.enqueue(...Array.from({ length: all.length * 2 }, () => healerModel));
    // Six groups (six browser contexts) at a time inside the full suite: at eight, a good build's framed action (click,
    // fill by test id) was twice seen without its effect in the frame on a loaded two-core machine (2 of 3 fresh runs,
    // never alone).
    results = await runMatrix(browser, llm, all, matrix, 6);
  }, 600_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), llm?.stop(), matrix?.stop()]);
  });

  it('covers every step kind, locator kind and bad build: at least 60 cells, the heals through the model over HTTP', () => {
    expect(all.length).toBeGreaterThanOrEqual(60);
    expect(new Set(all.map((c) => c.step)).size).toBe(7);
    expect(new Set(all.map((c) => c.locator)).size).toBe(8);
    expect(new Set(all.map((c) => c.mutation)).size).toBe(5);
    expect(results.filter(Boolean)).toHaveLength(all.length);
    expect(llm.requests.length).toBeGreaterThan(0);
  });

  it('shares a good build only among cells whose good builds are the same page, one cell per bad build', () => {
    const groups = goodBuildGroups(all);
    expect(groups.flat().map((c) => c.id)).toEqual(expect.arrayContaining(all.map((c) => c.id)));
    expect(groups.flat()).toHaveLength(all.length);
    for (const group of groups) {
      // The pages differ only in the cell's id (their title, a framed page's inner URL).
      for (const part of ['page', 'inner'] as const) {
        const goodPages = group.map((c) =>
          page(c, 'good', part).replaceAll(`Cell ${c.id}<`, 'Cell N<').replaceAll(`/cell/${c.id}/`, '/cell/N/'),
        );
        expect(new Set(goodPages).size, `${group[0]!.step} × ${group[0]!.locator} (${part})`).toBe(1);
      }
      expect(new Set(group.map((c) => c.mutation)).size).toBe(group.length);
    }
  });

  it('passes every good build clean: no failure, no change reported', () => {
    const dirty = results.filter((r) => r.control === 'NOT CLEAN').map((r) => `${r.step} × ${r.locator}: ${r.detail}`);
    expect(dirty).toEqual([]);
  });

  it('never passes a bad build silently', () => {
    const silent = results
      .filter((r) => r.outcome === 'SILENT PASS')
      .map((r) => `${r.step} × ${r.locator} × ${r.mutation}: ${r.detail}`);
    expect(silent, matrixTable(results)).toEqual([]);
    expect(summary(results)['SILENT PASS']).toBe(0);
  });

  it('fails a removed element, another name and error text in its place, whatever found it; a lost name is at least a regression', () => {
    for (const r of results) {
      if (r.mutation === 'name lost') expect(['failed', 'regression'], `${r.step} × ${r.locator}`).toContain(r.outcome);
      else if (r.mutation !== 'swapped')
        expect(r.outcome, `${r.step} × ${r.locator} × ${r.mutation}: ${r.detail}`).toBe('failed');
    }
    // A control that only lost its accessible name still works: it passes, and says it lost its name.
    const lost = results.find((r) => r.step === 'check' && r.locator === 'test id' && r.mutation === 'name lost')!;
    expect(lost).toMatchObject({
      outcome: 'regression',
      detail: 'the checkbox "Subscribe to news" lost its accessible name',
    });
  });

  it('gives every failure a kind that matches what the bad build did', () => {
    for (const r of results.filter((x) => x.outcome === 'failed'))
      expect(r.failureKind, `${r.step} × ${r.locator} × ${r.mutation}`).toBeDefined();
    const errorText = results.find(
      (r) => r.step === 'assert_visible' && r.locator === 'test id' && r.mutation === 'error text',
    )!;
    expect(errorText.failureKind).toBe('assertion');
    // What the page showed is quoted, not just that it failed.
    expect(errorText.detail).toContain('Group with this Name already exists.');
    const removed = results.find((r) => r.step === 'click' && r.locator === 'role+name' && r.mutation === 'removed')!;
    expect(removed.failureKind).toBe('element-missing');
  });

  it('judges elements inside an iframe as on the page: a swapped neighbour in the frame is switched back to the recorded one', () => {
    const framed = results.filter((r) => r.framed);
    expect(framed.length).toBeGreaterThanOrEqual(60);
    const swapped = framed.find(
      (r) => r.step === 'assert_visible' && r.locator === 'test id' && r.mutation === 'swapped',
    )!;
    expect(swapped.outcome, swapped.detail).toBe('right element');
    for (const r of framed.filter((x) => x.mutation === 'removed'))
      expect(r.outcome, `${r.step} × ${r.locator} in iframe`).toBe('failed');
  });

  it('refuses a lying heal of a message into the error beside it (a list item with no accessible name)', () => {
    const lying = results.find(
      (r) => r.step === 'assert_visible' && r.locator === 'heal: lying' && r.mutation === 'error text',
    )!;
    expect(lying.outcome).toBe('failed');
    expect(lying.detail).toMatch(
      /self-healing: refused the model's pick|not the expected "The group “QA Team” was added/,
    );
  });
});
