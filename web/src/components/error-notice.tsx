// An API failure as people read it: the server's message, and its stable code for a bug report.

import { ApiError, messageOf } from "../api";

export function ErrorNotice({ error }: { error: unknown }) {
  const code = error instanceof ApiError && error.code !== "HTTP_ERROR" ? error.code : undefined;
  return (
    <p class="error" role="alert">
      {messageOf(error)}
      {code && <span class="error-code"> ({code})</span>}
    </p>
  );
}
