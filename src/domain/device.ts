/**
 * The browser-context settings of a device preset (viewport, scale, touch, locale): what a test row stores in its
 * `device` column and a test execution carries to its browser context. A pure value, so the workflow contracts
 * (bundled into the workflow sandbox) can type it.
 */
export interface DeviceSettings {
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
  userAgent?: string;
  locale?: string;
  timezoneId?: string;
}
