// The scripted model's moves for the fixture's password + TOTP sign-in (test/support/fixtures/auth-toolkit.ts),
// shared by the auth toolkit test and the secrets-at-rest test, which both burn it in and replay it.
import { refOf, tool, type AgentMove } from './agent-script.js';
import { totpAccount } from './fixtures/auth-toolkit.js';

export const totpGoal = 'Sign in with the password and the authenticator code';

/** Email and password from configs, then the current code of the TOTP config. */
export const totpMoves: AgentMove[] = [
  (r) => tool('fill', { ref: refOf(r, 'textbox "Email"'), value: '{{AUTH_EMAIL}}', description: 'Type the email' }),
  (r) =>
    tool('fill', { ref: refOf(r, 'textbox "Password"'), value: '{{AUTH_PASSWORD}}', description: 'Type the password' }),
  (r) => tool('click', { ref: refOf(r, 'button "Sign in"'), description: 'Sign in' }),
  (r) =>
    tool('fill', {
      ref: refOf(r, 'textbox "Authentication code"'),
      value: '{{AUTH_TOTP}}',
      description: 'Type the current authenticator code',
    }),
  (r) => tool('click', { ref: refOf(r, 'button "Verify"'), description: 'Verify the code' }),
  () => tool('assert_text', { text: 'Signed in with two-factor authentication', description: 'Signed in' }),
  () => tool('done', { summary: 'Signed in with 2FA' }),
];

/** Waits for the next TOTP window, so the code of the next run differs from the last one the fixture accepted. */
export const nextWindow = () =>
  new Promise((r) => setTimeout(r, totpAccount.periodMs - (Date.now() % totpAccount.periodMs) + 100));
