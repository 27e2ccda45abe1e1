/** Puppeteer never downloads a browser here: tests drive the system Chromium (see scripts/setup.mjs). */
module.exports = { skipDownload: true };
