// The reading site's page in a fresh context for a test of the site: service
// workers blocked (the offline test is the one that lets them run), page
// errors collected, resolved once the site says it is ready.

/** Opens the site served by `running.demo` (demoAndChromium); resolves with `{ context, page, problems }`. */
export async function openSite(running) {
  const context = await running.browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(running.demo.url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  return { context, page, problems };
}
