// A small shop's map and three tests written by hand, for the coverage and suggestion tests: every number those
// tests expect is counted by hand from what is below (the counts are written next to the tests that check them).
import type { DiscoveredField, DiscoveredForm } from '../../src/domain/discovery.js';
import type { CoveredTest, MapPattern } from '../../src/domain/coverage.js';

export const base = 'https://shop.example.test';

const field = (label: string, name: string, type = 'text', required = true): DiscoveredField => ({
  label,
  name,
  type,
  required,
});

const form = (f: Partial<DiscoveredForm> & Pick<DiscoveredForm, 'key' | 'name' | 'fields'>): DiscoveredForm => ({
  method: 'post',
  action: '',
  submit: null,
  search: false,
  ...f,
});

export const forms = {
  search: form({
    key: 'search:q',
    name: 'Search',
    method: 'get',
    action: '/search',
    fields: [field('Search', 'q', 'search', false)],
    submit: 'Search',
    search: true,
  }),
  login: form({
    key: 'sign-in:email,password',
    name: 'Sign in',
    action: '/login',
    fields: [field('Email', 'email', 'email'), field('Password', 'password', 'password')],
    submit: 'Sign in',
  }),
  addToCart: form({
    key: 'add-to-cart:qty',
    name: 'Add to cart',
    action: '/cart/items',
    fields: [field('Quantity', 'qty', 'number')],
    submit: 'Add to cart',
  }),
  coupon: form({
    key: 'coupon:code',
    name: 'Coupon',
    action: '/cart/coupon',
    fields: [field('Coupon code', 'code')],
    submit: 'Apply',
  }),
  checkout: form({
    key: 'checkout:name,address,card',
    name: 'Checkout',
    action: '/orders',
    fields: [field('Name', 'name'), field('Address', 'address'), field('Card number *', 'card')],
    submit: 'Place order',
  }),
  note: form({
    key: 'note:note',
    name: 'Add a note',
    action: '/orders/{id}/notes',
    fields: [field('Note', 'note', 'textarea')],
    submit: 'Add note',
  }),
  profile: form({
    key: 'profile:display_name',
    name: 'Profile',
    action: '/settings',
    fields: [field('Display name', 'display_name')],
    submit: 'Save',
  }),
};

/** Nine patterns, seven distinct forms (the header search is on three patterns). */
export const shopMap: MapPattern[] = [
  { pattern: '/', example: '/', title: 'Shop', depth: 0, linksIn: 8, status: 200, forms: [forms.search] },
  { pattern: '/login', example: '/login', title: 'Sign in', depth: 1, linksIn: 8, status: 200, forms: [forms.login] },
  {
    pattern: '/products',
    example: '/products',
    title: 'Products',
    depth: 1,
    linksIn: 8,
    status: 200,
    forms: [forms.search],
  },
  {
    pattern: '/products/{id}',
    example: '/products/42',
    title: 'A product',
    depth: 2,
    linksIn: 2,
    status: 200,
    forms: [forms.search, forms.addToCart],
  },
  { pattern: '/cart', example: '/cart', title: 'Cart', depth: 1, linksIn: 8, status: 200, forms: [forms.coupon] },
  {
    pattern: '/checkout',
    example: '/checkout',
    title: 'Checkout',
    depth: 2,
    linksIn: 1,
    status: 200,
    forms: [forms.checkout],
  },
  { pattern: '/orders', example: '/orders', title: 'Orders', depth: 1, linksIn: 8, status: 200, forms: [] },
  {
    pattern: '/orders/{id}',
    example: '/orders/7',
    title: 'Order 7',
    depth: 2,
    linksIn: 1,
    status: 200,
    forms: [forms.note],
  },
  {
    pattern: '/settings',
    example: '/settings',
    title: 'Settings',
    depth: 1,
    linksIn: 8,
    status: 200,
    forms: [forms.profile],
  },
];

/** Recorded before `at` existed: every page is inferred. */
export const signIn: CoveredTest = {
  id: 't1',
  name: 'Sign in',
  startUrl: `${base}/login`,
  lastPassedAt: '2026-11-20T10:00:00.000Z',
  steps: [
    { action: 'fill', locator: "getByLabel('Email')", value: '{{EMAIL}}', description: 'Type the email' },
    { action: 'fill', locator: "getByLabel('Password')", value: '{{PASSWORD}}', description: 'Type the password' },
    { action: 'click', locator: "getByRole('button', { name: 'Sign in' })", description: 'Sign in' },
    { action: 'assert_url', value: '/products', description: 'On the products' },
    {
      action: 'assert_visible',
      locator: "getByRole('heading', { name: 'Products' })",
      target: { role: 'heading', name: 'Products' },
      description: 'The products show',
    },
  ],
};

/** Recorded with `at` on every step; fills two of the checkout's three fields and never places the order. */
export const buy: CoveredTest = {
  id: 't2',
  name: 'Buy a product',
  startUrl: `${base}/`,
  lastPassedAt: '2026-11-25T08:00:00.000Z',
  steps: [
    { action: 'navigate', value: '/products/42', description: 'Open a product', at: '/products/42' },
    {
      action: 'fill',
      locator: 'locator(\'input[name="qty"]\')',
      value: '2',
      description: 'Two of them',
      at: '/products/42',
    },
    {
      action: 'click',
      locator: "getByTestId('add')",
      fallbacks: ["getByRole('button', { name: 'Add to cart' })"],
      description: 'Add them to the cart',
      at: '/products/42',
    },
    { action: 'navigate', value: '/cart', description: 'Open the cart', at: '/cart' },
    { action: 'click', locator: "getByRole('link', { name: 'Checkout' })", description: 'Check out', at: '/cart' },
    { action: 'fill', locator: "getByLabel('Name')", value: 'Ada', description: 'Name', at: '/checkout' },
    { action: 'fill', locator: "getByLabel('Address')", value: '1 Main St', description: 'Address', at: '/checkout' },
    { action: 'assert_text', locator: "getByText('Total')", value: 'Total', description: 'Total', at: '/checkout' },
  ],
};

/** Resumed on an order's page, never passed; goes to the settings and back, then to a page the map lacks. */
export const orderNote: CoveredTest = {
  id: 't3',
  name: 'Add an order note',
  startUrl: `${base}/orders/7`,
  lastPassedAt: null,
  steps: [
    {
      action: 'fill',
      locator: "getByRole('textbox', { name: 'Note' })",
      value: 'Call me',
      description: 'Write a note',
    },
    { action: 'click', locator: "getByRole('button', { name: 'Add note' })", description: 'Add it' },
    { action: 'navigate', value: '/settings', description: 'Open the settings' },
    { action: 'assert_url', value: '/settings', description: 'On the settings' },
    { action: 'go_back', description: 'Back to the order' },
    { action: 'assert_visible', locator: "getByText('Call me')", description: 'The note shows' },
    { action: 'navigate', value: '/help', description: 'Open the help' },
    { action: 'http_request', value: '/api/ping', description: 'The API answers' },
  ],
};

export const shopTests = [signIn, buy, orderNote];
