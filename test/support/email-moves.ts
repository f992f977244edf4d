// The scripted model's moves for the fixture's emailed-code sign-up (test/support/mail-stack.ts: the `signup` application),
// shared by the inbox test (replayed by Proctor) and the export test (run as a Playwright spec).
import { refOf, tool, type AgentMove } from './agent-script.js';

/** Types this run's inbox address and signs up: the fixture then mails a verification code. */
export const signUpMoves: AgentMove[] = [
  (r) =>
    tool('fill', {
      ref: refOf(r, 'textbox "Email"'),
      value: '{{INBOX}}',
      description: "Type this run's inbox address",
    }),
  (r) => tool('click', { ref: refOf(r, 'button "Sign up"'), description: 'Sign up' }),
];

/** Waits for the verification mail, types its code and checks the address is verified. */
export const verifyCodeMoves: AgentMove[] = [
  () =>
    tool('wait_for_email', {
      to: '{{INBOX}}',
      subject: 'Verify',
      timeoutSeconds: 5,
      description: 'Wait for the verification mail',
    }),
  (r) =>
    tool('fill', {
      ref: refOf(r, 'textbox "Verification code"'),
      value: '{{EMAIL_CODE}}',
      description: 'Type the code',
    }),
  (r) => tool('click', { ref: refOf(r, 'button "Verify"'), description: 'Verify' }),
  () => tool('assert_text', { text: 'Email verified', description: 'Verified' }),
];
