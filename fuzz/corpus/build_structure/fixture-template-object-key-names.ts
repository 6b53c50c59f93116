// covers: code template naming: object property names used directly as parameter names; two URLs clash -> url, url2.
// expect: 1 node: n1 task playwright:browser_run_code with a code template whose extracted parameters are:
//   selector = "#login-button", retries = 3, timeout = 5000 (from the object keys), url = "https://example.com/login",
//   url2 = "https://example.com/account" (second goto: numeric suffix). No other nodes.
await mcp.playwright.browser_run_code({
  code: `async (page) => {
    const opts = { selector: '#login-button', retries: 3, timeout: 5000 };
    await page.goto('https://example.com/login');
    await page.click(opts.selector);
    await page.goto('https://example.com/account');
    return opts.retries;
  }`,
});
