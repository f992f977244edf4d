import { startFixtureApps, type FixtureApps } from './fixture-apps.js';
import { startScriptedLlm, type ScriptedLlm } from './scripted-llm.js';
import { startStack, type Stack } from './worker-context.js';

/** The stack with its SMTP inbox, the fixture apps mailing it, and one application per mail flow (sign-up, magic link). */
export interface MailStack {
  fixture: FixtureApps;
  llm: ScriptedLlm;
  stack: Stack;
  /** Application short ids by flow: `signup`, `magic`. */
  apps: Record<'signup' | 'magic', string>;
  /** One more application whose environment starts at the fixture's `path`; its short id. */
  addApplication(name: string, path: string): Promise<string>;
  close(): Promise<void>;
}

export async function startMailStack(): Promise<MailStack> {
  const [fixture, llm] = await Promise.all([startFixtureApps(), startScriptedLlm()]);
  const stack = await startStack({ llm, inbox: true });
  fixture.mail.setSmtpUrl(`smtp://127.0.0.1:${stack.inbox!.port}`);
  fixture.codes.setSmtpUrl(`smtp://127.0.0.1:${stack.inbox!.port}`);
  const addApplication = async (name: string, path: string): Promise<string> => {
    const shortId = (await stack.call('POST', '/v1/applications', { name })).body.shortId as string;
    await stack.call('POST', `/v1/applications/${shortId}/environments`, {
      name: 'Local',
      url: `${fixture.url}${path}`,
    });
    return shortId;
  };
  const apps = {} as MailStack['apps'];
  for (const [name, path] of [
    ['signup', '/mail/signup'],
    ['magic', '/mail/magic'],
  ] as const)
    apps[name] = await addApplication(name, path);
  return {
    fixture,
    llm,
    stack,
    apps,
    addApplication,
    async close() {
      await stack.close();
      await Promise.all([fixture.stop(), llm.stop()]);
    },
  };
}
