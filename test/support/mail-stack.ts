import { beforeAll } from 'vitest';
import { addApplication } from './applications.js';
import { useModelStack, type ModelStack } from './model-stack.js';

/** The stack with its SMTP inbox, the fixture apps mailing it, and one application per mail flow (sign-up, magic link). */
export interface MailStack extends ModelStack {
  /** Application short ids by flow: `signup`, `magic`. */
  apps: Record<'signup' | 'magic', string>;
  /** One more application whose environment starts at the fixture's `path`; its short id. */
  addApplication(name: string, path: string): Promise<string>;
}

/**
 * Starts the mail stack before the file's tests and stops it after them (see useModelStack). Its fields are set once
 * `beforeAll` ran, so tests read them from the returned object.
 */
export function useMailStack(): MailStack {
  const mail = useModelStack({ inbox: true }) as MailStack;
  mail.addApplication = async (name, path) =>
    (await addApplication(mail.stack, name, { name: 'Local', url: `${mail.fixture.url}${path}` })).shortId;
  beforeAll(async () => {
    const smtpUrl = `smtp://127.0.0.1:${mail.stack.inbox!.port}`;
    mail.fixture.mail.setSmtpUrl(smtpUrl);
    mail.fixture.codes.setSmtpUrl(smtpUrl);
    mail.apps = {
      signup: await mail.addApplication('signup', '/mail/signup'),
      magic: await mail.addApplication('magic', '/mail/magic'),
    };
  });
  return mail;
}
