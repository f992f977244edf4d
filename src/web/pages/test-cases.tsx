import type { Hono } from 'hono';
import { protectedArea } from '../area.js';
import type { WebEnv } from '../context.js';
import { renderPage } from '../layout.js';

export function registerTestCasePages(web: Hono<WebEnv>, base: string): void {
  protectedArea(web, base, '/test-cases');
  web.get('/test-cases', (c) => renderPage(c, { title: 'Test cases', nav: 'test-cases' }, <h1>Test cases</h1>));
}
