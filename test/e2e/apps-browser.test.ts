// MCP Apps in a real browser: Debian's headless Chromium (driven by playwright-core) loads a
// small host page (test/fixtures/apps-host.js, bundled here with esbuild) built on the ext-apps
// AppBridge and @modelcontextprotocol/client, at the origin of the example server started as its
// own process. The host calls `counter`, renders its app in a sandboxed iframe, the test clicks the
// app's button, and the answer of the app-only tool `counter_increment` must appear in the app and
// in the host's log, read from the DOM; a screenshot is written under the test's folder.
// Chromium missing is a failure, not a skip: CI installs it (.ci/run).
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { build } from 'esbuild'
import { chromium, type Browser } from 'playwright-core'
import { startExample, type Running } from '../helpers/clients.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const host = fileURLToPath(new URL('../fixtures/apps-host.js', import.meta.url))

let server: Running
let browser: Browser
t.before(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: install Debian's (apt-get install -y chromium; .ci/run does), or point CHROMIUM_PATH at one`)
  }
  server = await startExample()
  // as root (CI, the dev containers) Chromium's sandbox cannot start; the page's iframe keeps its own
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
})
t.teardown(async () => {
  await browser?.close()
  await server?.stop()
})

/** The host page: its script bundled for the browser (nothing loaded from the network), inline. */
async function hostPage (): Promise<string> {
  const bundled = await build({ entryPoints: [host], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' })
  const script = bundled.outputFiles[0]!.text.replaceAll('</script', '<\\/script')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>MCP Apps test host</title></head>
<body>
  <h1>Test host</h1>
  <p>All tools: <span id="all-tools"></span></p>
  <p>Offered to the model: <span id="model-tools"></span></p>
  <p>Model's result: <span id="model-result"></span></p>
  <div id="frame"></div>
  <pre id="app-calls"></pre>
  <pre id="error"></pre>
  <pre id="log"></pre>
  <script type="module">${script}</script>
</body></html>`
}

t.test('the counter app runs in Chromium and calls its app-only tool through the AppBridge', async (t) => {
  const html = await hostPage()
  const page = await browser.newPage()
  const errors: string[] = []
  page.on('pageerror', (err) => errors.push(err.message))
  const blocked: string[] = []
  // the host page is served at the example server's own origin, so its MCP requests are same-origin
  // POSTs to the real server; every other request the page (or the app) makes would be a failure
  const hostUrl = new URL('/apps-test-host', server.url).href
  await page.route('**/*', async (route) => {
    const url = route.request().url()
    if (url === hostUrl) return route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html })
    if (url === server.url.href) return route.continue()
    blocked.push(url)
    return route.abort()
  })
  await page.goto(hostUrl)

  await page.locator('#log').filter({ hasText: /host ready|failed/ }).waitFor({ timeout: 20_000 })
  t.equal(await page.textContent('#error'), '', 'the host set up without an error')
  t.match(await page.textContent('#log'), /the server's extensions: .*io\.modelcontextprotocol\/ui/, 'the server advertises MCP Apps')
  const all = (await page.textContent('#all-tools'))!.split(' ')
  const offered = (await page.textContent('#model-tools'))!.split(' ')
  t.ok(all.includes('counter') && all.includes('counter_increment'), 'a client with the extension lists the app-only tool')
  t.ok(offered.includes('counter') && !offered.includes('counter_increment'), 'and the host does not offer it to the model')
  t.equal(await page.textContent('#model-result'), 'The counter is at 41.', "the tool's text fallback, for the model")

  // the app, in its sandboxed iframe, rendered the tool result the host pushed to it
  const app = page.frameLocator('#app')
  await app.locator('#count').filter({ hasText: '41' }).waitFor({ timeout: 15_000 })
  t.equal(await app.locator('#answer').textContent(), 'The counter is at 41.')

  await app.locator('#increment').click()
  // the answer of counter_increment, called by the app, forwarded by the host, computed by the server
  await app.locator('#count').filter({ hasText: '42' }).waitFor({ timeout: 15_000 })
  t.equal(await app.locator('#answer').textContent(), 'The counter is at 42.', "the app shows the app-only tool's answer")
  t.equal(await page.textContent('#app-calls'), 'counter_increment: The counter is at 42.\n', 'the host forwarded exactly that call')
  t.match(await page.textContent('#log'), /the app calls counter_increment \{"count":41\}/)

  const shot = join(t.testdir(), 'apps-host.png')
  await page.screenshot({ path: shot, fullPage: true })
  t.ok(statSync(shot).size > 1000, `a screenshot at ${shot}`)
  t.same(errors, [], 'no uncaught error in the page or the app')
  t.same(blocked, [], 'nothing but the host page and the MCP endpoint was requested')
  await page.close()
})
