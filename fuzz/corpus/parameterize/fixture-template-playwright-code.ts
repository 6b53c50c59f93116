// covers: code template (Playwright `browser_run_code`): nested literals inside the template string extracted as parameters (seed Story 10.2f).
// expect: 1 node: n1 task playwright:browser_run_code; argument `code` (literal) recognised as a code template (heuristic: `async`, `=>`, `page.`).
//   templateParameters, in order: url = "http://localhost:8081/dashboard" (goto), loadState = "networkidle" (waitForLoadState),
//   selector = ".card h2" (locator), sliceStart = 0, sliceEnd = 100 (slice(a, b)), separator = " | " (join).
//   Names come from the method context; unique, deterministic.
//   NO code:slice / code:join nodes: code inside a string is not program code. variableBindings {result: n1}.
const result = await mcp.playwright.browser_run_code({
  code: `async (page) => {
    await page.goto('http://localhost:8081/dashboard');
    await page.waitForLoadState('networkidle');
    const texts = await page.locator('.card h2').allTextContents();
    return texts.slice(0, 100).join(' | ');
  }`,
});
return result;
