import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { exportPlaywrightSpec, type ExportInput } from '../../src/browser/export/export.js';
import type { Step } from '../../src/domain/steps.js';

// The spec text of mail steps, over the shapes a test can take: a chain sharing {{INBOX}}, a named inbox, a spec
// with no mail at all. That the spec runs and passes is proven in test/e2e/email-export.test.ts.

const signUp: Step[] = [
  { action: 'fill', locator: "getByLabel('Email')", value: '{{INBOX}}', description: 'Type the address' },
  { action: 'click', locator: "getByRole('button', { name: 'Sign up' })", description: 'Sign up' },
];
const verify = (to: string): Step[] => [
  {
    action: 'wait_for_email',
    value: to,
    email: { subject: 'Verify', from: 'acme', timeoutMs: 5000, expects: ['code'] },
    description: 'Wait',
  },
  { action: 'fill', locator: "getByLabel('Code')", value: 'code: {{EMAIL_CODE}}', description: 'Type the code' },
  { action: 'open_link', value: '{{EMAIL_LINK}}', description: 'Open the link' },
];

function syntaxErrors(spec: string): string[] {
  const out = ts.transpileModule(spec, {
    reportDiagnostics: true,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  return (out.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

/** The spec exported for `steps` on http://app.test (no configs unless `more` gives them); it must parse. */
function exportedSpec(name: string, steps: Step[], more: Partial<ExportInput> = {}): string {
  const spec = exportPlaywrightSpec({ name, baseUrl: 'http://app.test', configs: {}, steps, ...more });
  expect(syntaxErrors(spec)).toEqual([]);
  return spec;
}

describe('export of mail steps', () => {
  it('gives a resume-from chain one {{INBOX}}, made when the test starts, and no step left unexported', () => {
    const spec = exportedSpec('Verify', verify('{{INBOX}}'), { dependencies: [{ name: 'Sign up', steps: signUp }] });
    expect(spec.match(/await inboxAddress\(/g)).toHaveLength(1);
    expect(spec).toContain("  config['INBOX'] = await inboxAddress();");
    expect(spec).toContain("  'INBOX': '', // an address of Proctor's inbox, made when the test starts");
    expect(spec).not.toContain('process.env.INBOX');
    expect(spec).not.toContain('process.env.EMAIL_CODE');
    expect(spec).toContain(
      'waitForEmail(config.INBOX, {"subject":"Verify","from":"acme","timeoutMs":5000,"expects":["code"]})',
    );
    expect(spec).toContain(".fill('code: ' + config.EMAIL_CODE)");
    expect(spec).toContain('const link = config.EMAIL_LINK;');
    expect(spec).not.toContain('cannot be exported yet');
    expect(spec).toMatch(/PROCTOR_API_URL .*\n.*PROCTOR_API_TOKEN/);
  });

  it('hands the code shape burn-in recorded to Proctor, so the spec takes the code replay takes', () => {
    const steps = verify('{{INBOX}}');
    steps[0]!.email = { ...steps[0]!.email, codeShape: 'AAAA-AAAA', linkPattern: '/verify' };
    const spec = exportedSpec('Shaped', [...signUp, ...steps]);
    expect(spec).toContain(
      'waitForEmail(config.INBOX, {"subject":"Verify","from":"acme","linkPattern":"/verify","codeShape":"AAAA-AAAA","timeoutMs":5000,"expects":["code"]})',
    );
    expect(spec).toContain('...(match.codeShape && { codeShape: match.codeShape })');
    expect(spec).toContain('holds no one-time code${shaped}');
  });

  it('looks {{INBOX:name}} up by key and asks for the named address', () => {
    const spec = exportedSpec('Named', [{ ...signUp[0]!, value: '{{INBOX:qa-team}}' }, ...verify('{{INBOX:qa-team}}')]);
    expect(spec).toContain("  config['INBOX:qa-team'] = await inboxAddress('qa-team');");
    expect(spec).toContain(".fill(config['INBOX:qa-team'])");
    expect(spec).toContain("waitForEmail(config['INBOX:qa-team'], ");
  });

  it('leaves a spec without mail steps as it was: no inbox helpers, no Proctor settings', () => {
    const spec = exportedSpec(
      'Plain',
      [{ action: 'fill', locator: "getByLabel('User')", value: '{{USER}}', description: 'User' }],
      { configs: { USER: { value: 'ann', isSecret: false } } },
    );
    expect(spec).not.toContain('PROCTOR_API');
    expect(spec).not.toContain('inboxAddress');
    expect(spec).toContain('.fill(config.USER)');
  });
});
