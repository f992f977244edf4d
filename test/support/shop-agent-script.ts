import { refOf, tool, type AgentMove } from './agent-script.js';
import { shopCredentials } from './fixture-apps.js';
import type { Stack } from './worker-context.js';

// The scripted agent's side of burning in the fixture shop: shared by the e2e tests and the prompt-size benchmark.

/** Signs in with the shop's credentials (as secret placeholders) and adds the coffee mug: no check, no `done`. */
export const signInAndAddMug: AgentMove[] = [
  (r) =>
    tool('fill', { ref: refOf(r, 'textbox "Email"'), value: '{{SHOP_EMAIL}}', description: 'Type the shopper email' }),
  (r) =>
    tool('fill', { ref: refOf(r, 'textbox "Password"'), value: '{{SHOP_PASSWORD}}', description: 'Type the password' }),
  (r) => tool('click', { ref: refOf(r, 'button "Sign in"'), description: 'Sign in' }),
  (r) =>
    tool('click', { ref: refOf(r, 'button "Add Coffee mug to cart"'), description: 'Add the coffee mug to the cart' }),
];

export const loginGoal = 'Sign in and add the coffee mug to the cart';
export const loginMoves: AgentMove[] = [
  ...signInAndAddMug,
  (r) => tool('assert_visible', { ref: refOf(r, 'link "Cart (1)"'), description: 'The cart shows one item' }),
  () => tool('done', { summary: 'Signed in, mug in cart' }),
];

export const checkoutGoal = 'Check out the cart with express shipping';
export const checkoutMoves: AgentMove[] = [
  (r) => tool('click', { ref: refOf(r, 'link "Cart (1)"'), description: 'Open the cart' }),
  (r) => tool('click', { ref: refOf(r, 'button "Checkout"'), description: 'Go to checkout' }),
  (r) => tool('fill', { ref: refOf(r, 'textbox "Full name"'), value: 'Ada Lovelace', description: 'Enter the name' }),
  (r) =>
    tool('fill', { ref: refOf(r, 'textbox "Address"'), value: '12 Analytical St', description: 'Enter the address' }),
  (r) =>
    tool('select', { ref: refOf(r, 'combobox "Shipping"'), option: 'Express', description: 'Choose express shipping' }),
  (r) =>
    tool('check', { ref: refOf(r, 'checkbox "I accept the terms"'), checked: true, description: 'Accept the terms' }),
  (r) => tool('click', { ref: refOf(r, 'button "Place order"'), description: 'Place the order' }),
  (r) => tool('assert_visible', { ref: refOf(r, 'heading "Order confirmed"'), description: 'The order is confirmed' }),
  () => tool('done', { summary: 'Order placed' }),
];

/**
 * The Shop application with one environment on its login page, and the shopper's configs the agent types as
 * `{{SHOP_EMAIL}}` and `{{SHOP_PASSWORD}}` (the password a secret): what each burn-in of the fixture shop starts from.
 */
export async function addShop(
  stack: Pick<Stack, 'call'>,
  loginUrl: string,
  names = { application: 'Shop', environment: 'Local' },
): Promise<{ appShortId: string; configShortIds: string[] }> {
  const appShortId = (await stack.call('POST', '/v1/applications', { name: names.application })).body.shortId as string;
  await stack.call('POST', `/v1/applications/${appShortId}/environments`, { name: names.environment, url: loginUrl });
  const email = (await stack.call('POST', '/v1/configs', { name: 'SHOP_EMAIL', value: shopCredentials.email })).body;
  const password = (
    await stack.call('POST', '/v1/configs', { name: 'SHOP_PASSWORD', value: shopCredentials.password, isSecret: true })
  ).body;
  return { appShortId, configShortIds: [email.shortId, password.shortId] };
}
