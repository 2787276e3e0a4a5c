// The stdio line transport fed through in-memory streams, chunk by chunk as a pipe may cut them.
import assert from "node:assert/strict";
import { PassThrough, Writable } from "node:stream";
import { describe, test } from "node:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { StdioLineTransport } from "./stdio-line-transport.js";

/** Lets the streams deliver what was written. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const ping = (id: string | number): string => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

/** A started transport on fresh streams, with everything it delivered, reported and wrote recorded. */
async function connect(maxMessageBytes?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = "";
  output.on("data", (chunk: Buffer) => (written += chunk.toString()));
  const transport = new StdioLineTransport({ input, output, ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }) });
  const seen = { messages: [] as JSONRPCMessage[], errors: [] as Error[], closed: false };
  transport.onmessage = (message) => seen.messages.push(message);
  transport.onerror = (error) => seen.errors.push(error);
  transport.onclose = () => (seen.closed = true);
  await transport.start();
  return {
    input,
    output,
    transport,
    seen,
    /** Writes each chunk on its own, so the transport sees them apart. */
    async feed(...chunks: (string | Buffer)[]): Promise<void> {
      for (const chunk of chunks) {
        input.write(chunk);
        await settle();
      }
    },
    /** What the transport wrote, one parsed message per line. */
    replies: (): unknown[] => written.split("\n").filter(Boolean).map((line) => JSON.parse(line) as unknown),
  };
}

/** `text` cut into pieces of `size` bytes, without regard for characters. */
function chunksOf(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text, "utf8");
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return chunks;
}

describe("StdioLineTransport", () => {
  test("a line over the limit, streamed in many chunks, is answered with -32600 naming the limit, and the next line is served", async () => {
    const { feed, replies, seen } = await connect(1000);
    const long = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(3000) } });
    await feed(...chunksOf(long, 64), `\n${ping(2)}\n`);
    assert.deepEqual(replies(), [
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: a message longer than 1000 bytes was discarded" } },
    ]);
    assert.deepEqual(seen.messages, [{ jsonrpc: "2.0", id: 2, method: "ping" }]);
    assert.equal(seen.errors.length, 1);
    assert.match(seen.errors[0]?.message ?? "", /longer than 1000 bytes/);
    assert.equal(seen.closed, false);
  });

  test("the limit counts the message, not its line ending", async () => {
    const fits = ping("a".repeat(20));
    const { feed, replies, seen } = await connect(Buffer.byteLength(fits));
    await feed(`${fits}\r\n`, `${fits}\n`, `${ping("a".repeat(21))}\r\n`);
    assert.equal(seen.messages.length, 2, "a message exactly at the limit is read, with either line ending");
    assert.deepEqual(
      replies().map((reply) => (reply as { error: { code: number } }).error.code),
      [-32600],
      "one byte more is refused",
    );
  });

  test("a multi-byte character cut between chunks arrives whole", async () => {
    const { feed, seen } = await connect();
    const text = "crème brûlée 🎬 日本語";
    const line = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: text } })}\n`;
    // One byte at a time cuts every multi-byte character somewhere.
    await feed(...chunksOf(line, 1));
    assert.deepEqual(seen.messages, [{ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: text } }]);
    assert.deepEqual(seen.errors, []);
  });

  test("CRLF line endings are read, also when the CR and the LF come in different chunks", async () => {
    const { feed, replies, seen } = await connect();
    await feed(`${ping(1)}\r\n${ping(2)}\r`, `\n${ping(3)}\r\n`);
    assert.deepEqual(
      seen.messages.map((message) => ("id" in message ? message.id : undefined)),
      [1, 2, 3],
    );
    assert.deepEqual(replies(), []);
    assert.deepEqual(seen.errors, []);
  });

  test("lines that are not messages are answered with JSON-RPC errors, reported, and the transport keeps serving", async () => {
    const { feed, replies, seen } = await connect();
    await feed(
      "not json\n",
      `[${ping(1)}]\n`,
      "\n",
      "  \r\n",
      `${JSON.stringify({ jsonrpc: "2.0", id: 7, method: 42 })}\n`,
      `${JSON.stringify({ jsonrpc: "2.0", id: { not: "an id" }, method: "ping" })}\n`,
      `${JSON.stringify({ id: "s", method: "ping" })}\n`,
      `${ping(8)}\n`,
    );
    assert.deepEqual(
      replies().map((reply) => {
        const { id, error } = reply as { id: unknown; error: { code: number } };
        return [id, error.code];
      }),
      [
        [null, -32700],
        [null, -32600],
        [7, -32600],
        [null, -32600],
        ["s", -32600],
      ],
    );
    assert.match(JSON.stringify(replies()[0]), /Parse error/);
    assert.match(JSON.stringify(replies()[1]), /batch/);
    assert.deepEqual(seen.messages, [{ jsonrpc: "2.0", id: 8, method: "ping" }]);
    assert.equal(seen.errors.length, 5, "each bad line is reported once; empty lines are not");
    assert.equal(seen.closed, false);
  });

  test("the end of input closes the transport once the requests read are answered", async () => {
    const { feed, input, transport, seen } = await connect();
    await feed(`${ping(1)}\n`);
    input.end();
    await settle();
    assert.equal(seen.closed, false, "the request is still being answered");
    await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    assert.equal(seen.closed, true);
  });

  test("the end of input closes the transport at once when nothing is pending, and a cancelled request is not waited for", async () => {
    const idle = await connect();
    idle.input.end();
    await settle();
    assert.equal(idle.seen.closed, true);

    const cancelling = await connect();
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } };
    await cancelling.feed(`${ping(1)}\n${JSON.stringify(cancel)}\n`);
    cancelling.input.end();
    await settle();
    assert.equal(cancelling.seen.closed, true);
  });

  test("send waits until the output drains", async () => {
    const flush: (() => void)[] = [];
    const output = new Writable({
      highWaterMark: 1,
      write: (_chunk, _encoding, done) => void flush.push(done),
    });
    const transport = new StdioLineTransport({ input: new PassThrough(), output });
    await transport.start();
    let sent = false;
    const sending = transport.send({ jsonrpc: "2.0", id: 1, result: {} }).then(() => (sent = true));
    await settle();
    assert.equal(sent, false, "the reader has not taken the line yet");
    flush.shift()?.();
    await sending;
    assert.equal(sent, true);
  });

  test("an output that fails (the client went away) is reported and closes the transport", async () => {
    const { output, seen } = await connect();
    output.destroy(new Error("write EPIPE"));
    await settle();
    assert.equal(seen.closed, true);
    assert.match(seen.errors.map(String).join("\n"), /EPIPE/);
  });
});
