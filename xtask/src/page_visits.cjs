// Loads a page twice in one Chromium profile, as a learner who comes back
// does, and prints the bytes that crossed the network each time (every
// response's encoded length, headers included, as Chromium's DevTools
// count it; what came from the browser's cache counts nothing).
//
// Run by `cargo xtask lighthouse` with NODE_PATH at Lighthouse's
// node_modules, whose puppeteer-core drives Debian's Chromium.
// Usage: node page_visits.cjs URL READY  ->  {"first": BYTES, "second": BYTES}
// READY is a CSS selector the page shows once its app has started (the
// learner's page keeps a stream of steps open, so the network is never idle).

const puppeteer = require("puppeteer-core");

async function visit(page, client, url, ready) {
  let bytes = 0;
  const finished = (event) => {
    bytes += event.encodedDataLength;
  };
  client.on("Network.loadingFinished", finished);
  await page.goto(url, { waitUntil: "load" });
  await page.waitForSelector(ready);
  client.off("Network.loadingFinished", finished);
  return bytes;
}

(async () => {
  const [url, ready] = process.argv.slice(2);
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM,
    args: process.env.CHROMIUM_FLAGS.split(/\s+/).filter((flag) => flag !== "--headless=new"),
    headless: true,
  });
  try {
    const page = await browser.newPage();
    const client = await page.createCDPSession();
    await client.send("Network.enable");
    const first = await visit(page, client, url, ready);
    await page.goto("about:blank");
    const second = await visit(page, client, url, ready);
    console.log(JSON.stringify({ first, second }));
  } finally {
    await browser.close();
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
