/**
 * The inspector's login form: the token goes in a POST body, never in an address that proxies
 * and browser history keep. No script and nothing from another host.
 */
export function loginPage(action: string, failed: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>kaiwa inspector — log in</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 4rem auto; padding: 0 1rem; }
  input { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
  button { margin-top: .75rem; padding: .5rem 1rem; font: inherit; }
  #login-failed { color: #b00020; }
</style>
</head>
<body>
<h1>kaiwa inspector</h1>
<p>Conversations are private: enter the <code>INSPECT_TOKEN</code> this kaiwa was started with.</p>
${failed ? '<p id="login-failed" role="alert">That is not the token.</p>\n' : ''}<form method="post" action="${escapeAttribute(action)}">
<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Open the inspector</button>
</form>
</body>
</html>
`;
}

function escapeAttribute(value: string): string {
  return value.replace(/[&"<>]/g, (character) => `&#${character.charCodeAt(0)};`);
}
