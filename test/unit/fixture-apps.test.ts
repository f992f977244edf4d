import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chromiumFlags } from '../../src/browser/context/pool.js';
import { loadPrograms } from '../../src/programs.js';
import { shopCredentials, startFixtureApps, type FixtureApps } from '../support/fixture-apps.js';

describe('fixture apps', () => {
  let apps: FixtureApps;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    [apps, browser] = await Promise.all([
      startFixtureApps(),
      chromium.launch({ executablePath: loadPrograms().chromium, args: chromiumFlags }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await apps?.stop();
  });
  afterEach(async () => {
    apps.setVariant('original');
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });

  async function newPage(options?: Parameters<Browser['newContext']>[0]): Promise<Page> {
    const context = await browser.newContext(options);
    context.setDefaultTimeout(5_000);
    contexts.push(context);
    return context.newPage();
  }

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${apps.url}/shop/login`);
    await page.getByLabel('Email').fill(shopCredentials.email);
    await page.getByLabel('Password').fill(shopCredentials.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/shop/products');
  }

  async function addTwoProducts(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Add Coffee mug to cart' }).click();
    await page.getByRole('button', { name: 'Add Water bottle to cart' }).click();
    await page.getByRole('link', { name: 'Cart (2)' }).click();
    await page.waitForURL('**/shop/cart');
    await page.getByText('Total: 30.50').waitFor();
    expect(await page.getByRole('listitem').allTextContents()).toEqual([
      'Coffee mug — 1 × 12.00',
      'Water bottle — 1 × 18.50',
    ]);
  }

  async function checkOut(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Checkout' }).click();
    await page.waitForURL('**/shop/checkout');
    await page.getByLabel('Full name').fill('Ada Lovelace');
    await page.getByLabel('Address').fill('12 Analytical Row');
    await page.getByLabel('Shipping').selectOption('Express');
    await page.getByRole('checkbox', { name: 'I accept the terms' }).check();
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByRole('heading', { name: 'Order confirmed' }).waitFor();
    await page.getByText('Thank you, Ada Lovelace!').waitFor();
    await page.getByRole('link', { name: 'Cart (0)' }).waitFor();
  }

  async function todoRoundTrip(page: Page): Promise<void> {
    await page.goto(`${apps.url}/todo/`);
    await page.getByRole('heading', { name: 'Todos' }).waitFor();
    await page.getByLabel('New todo').fill('Buy milk');
    await page.getByLabel('New todo').press('Enter');
    await page.getByPlaceholder('What needs to be done?').fill('Walk the dog');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText('2 items left').waitFor();
    await page.getByRole('checkbox', { name: 'Buy milk' }).check();
    await page.getByText('1 item left').waitFor();
    await page.getByRole('button', { name: 'Delete Walk the dog' }).click();
    await page.getByText('0 items left').waitFor();
    expect(await page.getByRole('checkbox').count()).toBe(1);
    expect(await page.getByRole('checkbox', { name: 'Buy milk' }).isChecked()).toBe(true);
    // State survives a reload: it lives in localStorage.
    await page.reload();
    expect(await page.getByRole('checkbox', { name: 'Buy milk' }).isChecked()).toBe(true);
  }

  it('shop: signs in, adds two products, checks out', async () => {
    const page = await newPage();
    await signIn(page);
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'session')).toMatchObject({ httpOnly: true, path: '/' });
    expect(
      await page.evaluate(() => [localStorage.getItem('shop_user'), sessionStorage.getItem('shop_tab_token')]),
    ).toEqual([shopCredentials.email, expect.stringMatching(/^tab-\w+$/)]);
    await page.getByRole('heading', { name: 'Products' }).waitFor();
    expect(await page.getByRole('listitem').count()).toBe(3);
    await addTwoProducts(page);
    await checkOut(page);
    expect(await page.getByText('shipping: Express').count()).toBe(1);
    expect(await page.evaluate(() => localStorage.getItem('shop_cart'))).toBeNull();
    expect(apps.requests()).toContain('POST /shop/api/orders');
  });

  it('shop: rejects a wrong password and guards pages with the session cookie', async () => {
    const page = await newPage();
    await page.goto(`${apps.url}/shop/products`);
    expect(new URL(page.url()).pathname).toBe('/shop/login');
    await page.getByLabel('Email').fill(shopCredentials.email);
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Invalid email or password');
    expect(new URL(page.url()).pathname).toBe('/shop/login');
  });

  it('todo: adds, completes and deletes items', async () => {
    await todoRoundTrip(await newPage());
  });

  it('restyled: role and label locators still work while recorded CSS breaks', async () => {
    const page = await newPage();
    await page.goto(`${apps.url}/shop/login`);
    expect(await page.locator('#email').count()).toBe(1);
    apps.setVariant('restyled');
    await page.reload();
    expect(await page.locator('#email').count()).toBe(0);
    await signIn(page);
    expect(await page.locator('ul li button#add-mug').count()).toBe(0);
    expect(await page.getByRole('list', { name: 'Products' }).evaluate((e) => e.tagName)).toBe('DIV');
    await addTwoProducts(page);
    await checkOut(page);
    await todoRoundTrip(page);
    expect(await page.locator('#todo-list').count()).toBe(0);
  });

  it('renamed: the add buttons get new accessible names', async () => {
    const page = await newPage();
    apps.setVariant('renamed');
    await signIn(page);
    await page.getByRole('button', { name: 'Put Coffee mug in basket' }).click();
    await page.getByRole('link', { name: 'Cart (1)' }).waitFor();
    expect(await page.getByRole('button', { name: 'Add Coffee mug to cart' }).count()).toBe(0);
    expect(await page.getByText('Add to cart').count()).toBe(0);
  });

  it('checkout: needs the tab token from sessionStorage, not only cookies and localStorage', async () => {
    const first = await newPage();
    await signIn(first);
    await addTwoProducts(first);
    const tabToken = await first.evaluate(() => sessionStorage.getItem('shop_tab_token'));

    // storageState carries cookies and localStorage but not sessionStorage.
    const storageState = await first.context().storageState();
    const withoutSession = await newPage({ storageState });
    await withoutSession.goto(`${apps.url}/shop/checkout`);
    expect(await withoutSession.getByRole('alert').textContent()).toBe('Session expired in this tab');
    expect(await withoutSession.getByRole('button', { name: 'Place order' }).count()).toBe(0);
    await withoutSession.getByRole('link', { name: 'Cart (2)' }).waitFor();

    const withSession = await newPage({ storageState });
    await withSession.addInitScript((token) => sessionStorage.setItem('shop_tab_token', token), tabToken!);
    await withSession.goto(`${apps.url}/shop/cart`);
    await checkOut(withSession);
  });

  it('serves the index, a slow page and redirects', async () => {
    const index = await fetch(`${apps.url}/`);
    expect(await index.text()).toContain('href="/todo/"');
    const redirect = await fetch(`${apps.url}/redirect?to=${encodeURIComponent('/todo/')}`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([302, '/todo/']);
    const started = Date.now();
    const slow = await fetch(`${apps.url}/slow`);
    expect(slow.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect(apps.requests()).toEqual(expect.arrayContaining(['GET /', 'GET /redirect?to=%2Ftodo%2F', 'GET /slow']));
  });
});
