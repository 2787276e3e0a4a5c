// The token form a protected server asks for; the requests that were refused run again once it is accepted.

import { useEffect, useRef, useState } from "preact/hooks";
import { login } from "../api";
import { ErrorNotice } from "./error-notice";

export function LoginForm() {
  const [token, setToken] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await login(token);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="overlay" role="dialog" aria-modal="true" aria-labelledby="login-title">
      <form class="login panel" onSubmit={submit}>
        <h2 id="login-title">This server needs a token</h2>
        <label for="login-token">Access token</label>
        <input
          id="login-token"
          ref={input}
          type="password"
          autoComplete="current-password"
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          required
        />
        {error !== undefined && <ErrorNotice error={error} />}
        <button class="primary" type="submit" disabled={busy || token === ""}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </div>
  );
}
