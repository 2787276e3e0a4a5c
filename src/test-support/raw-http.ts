// Test support: HTTP requests written byte for byte over a socket, for what fetch will not send (a truncated body, a
// foreign Host header, a client that goes away mid-upload, a NUL in a part header).

import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `head` (request line and headers, without the blank line) and `body` to 127.0.0.1:`port`. With `cutAfterBytes`,
 * only that much of the body is written and the socket is destroyed: resolves undefined (no response is read).
 */
export function rawRequest(port: number, head: string, body: Buffer | string = "", options: { cutAfterBytes?: number; timeoutMs?: number } = {}): Promise<RawResponse | undefined> {
  const payload = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no response within ${options.timeoutMs ?? 10_000} ms to ${head.split("\r\n")[0]}`));
    }, options.timeoutMs ?? 10_000);
    socket.on("connect", () => {
      socket.write(`${head}\r\n\r\n`);
      if (options.cutAfterBytes !== undefined) {
        socket.write(payload.subarray(0, options.cutAfterBytes), () => {
          clearTimeout(timer);
          socket.destroy();
          resolve(undefined);
        });
        return;
      }
      // Not ended: a client that half-closes its side may lose the answer to a body the server is still failing on.
      socket.write(payload);
    });
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString("latin1");
      const parsed = parseResponse(text);
      if (parsed) {
        clearTimeout(timer);
        socket.destroy();
        resolve(parsed);
      }
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      // The server may answer and close before the whole body was written (a 413): what it said is the answer.
      const parsed = parseResponse(Buffer.concat(chunks).toString("latin1"));
      if (parsed) resolve(parsed);
      else if (options.cutAfterBytes !== undefined) resolve(undefined);
      else reject(error);
    });
    socket.on("end", () => {
      clearTimeout(timer);
      const parsed = parseResponse(Buffer.concat(chunks).toString("latin1"), true);
      if (parsed) resolve(parsed);
      else if (options.cutAfterBytes !== undefined) resolve(undefined);
      else reject(new Error(`the server closed the connection without a response to ${head.split("\r\n")[0]}`));
    });
  });
}

/** A complete response (head, and a body by Content-Length or chunked, or to the end of the stream), or undefined. */
function parseResponse(text: string, ended = false): RawResponse | undefined {
  const split = text.indexOf("\r\n\r\n");
  if (split < 0) return undefined;
  const [statusLine = "", ...lines] = text.slice(0, split).split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = text.slice(split + 4);
  const length = headers["content-length"];
  if (length !== undefined) return rest.length >= Number(length) ? { status, headers, body: rest.slice(0, Number(length)) } : undefined;
  if (headers["transfer-encoding"] === "chunked") {
    let body = "";
    let offset = 0;
    for (;;) {
      const lineEnd = rest.indexOf("\r\n", offset);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(rest.slice(offset, lineEnd), 16);
      if (size === 0) return { status, headers, body };
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      offset = lineEnd + 2 + size + 2;
    }
  }
  return ended || status === 204 || status === 304 ? { status, headers, body: rest } : undefined;
}

/** A multipart/form-data body with one file part, and the boundary it uses. */
export function multipartBody(fileName: string, content: Buffer | string, boundary = "videorag-test-boundary"): { body: Buffer; boundary: string } {
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`, "utf8"),
    Buffer.isBuffer(content) ? content : Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, boundary };
}
