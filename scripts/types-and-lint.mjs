#!/usr/bin/env node
// Types (what `tsc --noEmit` reports) and lint (what `eslint .` reports) in one process over one TypeScript program.
// ESLint's type-aware rules (no-floating-promises, no-misused-promises) otherwise build a program of their own and
// type-check the whole project a second time: apart, tsc took 32 CPU-s and eslint 70 (19 without those two rules);
// together they take about 75. The exit code is non-zero if either found a problem. `npm run typecheck` and
// `npm run lint` still run each alone, with the same verdicts.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const diagnostics = [];
const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => diagnostics.push(d) };
const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, host);
let program;
if (config) {
  diagnostics.push(...config.errors);
  program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    projectReferences: config.projectReferences,
  });
  diagnostics.push(...ts.getPreEmitDiagnostics(program));
}
const formatHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' };
if (diagnostics.length) {
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  process.stdout.write(`${format(diagnostics, formatHost)}\ntsc: ${diagnostics.length} error(s)\n`);
}

// The type-aware rules read this program (already checked above) instead of asking the project service for one. The
// dashboard's browser scripts are outside the TypeScript project and linted without types (eslint.config.js).
const typed = program ? { projectService: false, programs: [program] } : {};
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [
    { languageOptions: { parserOptions: typed } },
    { files: ['src/web/assets/**/*.js'], languageOptions: { parserOptions: { programs: null } } },
  ],
});
const results = await eslint.lintFiles(['.']);
const report = await (await eslint.loadFormatter('stylish')).format(results);
if (report) process.stdout.write(report);
const lintErrors = results.reduce((n, r) => n + r.errorCount + r.fatalErrorCount, 0);
process.exit(diagnostics.length || lintErrors || !program ? 1 : 0);
