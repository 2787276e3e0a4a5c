// The stdio transport `videorag mcp` speaks: one JSON-RPC message per line on stdin and stdout, as the MCP stdio transport
// specifies. The SDK's own stdio transport closes the connection when a message passes its size limit and drops lines
// it cannot read without a word; a client then sees the server vanish, or waits forever for an answer. This one answers
// every line it cannot serve with a JSON-RPC error, keeps serving, never holds more than one message's worth of input,
// and ends the connection when the client closes stdin, once the requests it already sent are answered.

import { once } from "node:events";
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCMessageSchema,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/** The longest message read, in bytes of UTF-8 without the line ending; a longer line is discarded and answered with an error. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** Where a StdioLineTransport reads and writes, and how long a message may be. */
export interface StdioLineTransportOptions {
  /** Newline-delimited JSON-RPC from the client; process.stdin by default. */
  input?: Readable;
  /** Where replies go, one per line; process.stdout by default. */
  output?: Writable;
  /** The longest line read, in bytes; MAX_MESSAGE_BYTES by default. */
  maxMessageBytes?: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** An MCP transport over newline-delimited JSON that answers unreadable lines with JSON-RPC errors instead of closing. */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxMessageBytes: number;
  // The current line's bytes so far; emptied, and only counted, once the line is known to be too long.
  private pieces: Buffer[] = [];
  private lineBytes = 0;
  private lineEndsWithCarriageReturn = false;
  // Requests handed to the server and not yet answered: the input ending waits for them, since closing aborts them.
  private readonly unanswered = new Map<RequestId, number>();
  private inputEnded = false;
  private started = false;
  private closed = false;
  // Aborts writes waiting for 'drain' when the transport closes, so no send stays pending forever.
  private readonly closing = new AbortController();

  constructor(options: StdioLineTransportOptions = {}) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("StdioLineTransport already started (Server.connect starts it)");
    this.started = true;
    this.input.on("data", this.onData);
    this.input.on("end", this.onEnd);
    this.input.on("error", this.onInputError);
    this.output.on("error", this.onOutputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error("the MCP connection is closed");
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined) this.answered(message.id);
    await this.write(message);
    if (this.inputEnded && this.unanswered.size === 0) await this.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("end", this.onEnd);
    this.input.off("error", this.onInputError);
    this.output.off("error", this.onOutputError);
    // A paused stdin no longer keeps the process alive; leave it flowing if someone else still reads it.
    if (this.input.listenerCount("data") === 0) this.input.pause();
    this.pieces = [];
    this.closing.abort();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    // Splitting on the newline byte is safe before decoding: no byte of a multi-byte UTF-8 character is 0x0a.
    let start = 0;
    while (start < bytes.length && !this.closed) {
      const newline = bytes.indexOf(NEWLINE, start);
      this.collect(bytes.subarray(start, newline === -1 ? bytes.length : newline));
      if (newline === -1) break;
      this.endLine();
      start = newline + 1;
    }
  };

  private readonly onEnd = (): void => {
    // A last line without its newline is still a message.
    if (this.lineBytes > 0) this.endLine();
    this.inputEnded = true;
    if (this.unanswered.size === 0) void this.close();
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(new Error(`reading stdin failed: ${error.message}`));
    this.onEnd();
  };

  private readonly onOutputError = (error: Error): void => {
    // Nobody can hear the replies any more (the client went away): serving on would only pile them up.
    this.onerror?.(new Error(`writing stdout failed: ${error.message}`));
    void this.close();
  };

  private collect(piece: Buffer): void {
    if (piece.length === 0) return;
    this.lineBytes += piece.length;
    this.lineEndsWithCarriageReturn = piece[piece.length - 1] === CARRIAGE_RETURN;
    // One byte of slack for the carriage return of a CRLF line ending, which is not part of the message.
    if (this.lineBytes > this.maxMessageBytes + 1) this.pieces = [];
    else this.pieces.push(piece);
  }

  private endLine(): void {
    const messageBytes = this.lineBytes - (this.lineEndsWithCarriageReturn ? 1 : 0);
    const line = Buffer.concat(this.pieces).subarray(0, messageBytes);
    this.pieces = [];
    this.lineBytes = 0;
    this.lineEndsWithCarriageReturn = false;
    if (messageBytes > this.maxMessageBytes) {
      this.reject(null, ErrorCode.InvalidRequest, `Invalid Request: a message longer than ${describeBytes(this.maxMessageBytes)} was discarded`);
      return;
    }
    const text = line.toString("utf8");
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.reject(null, ErrorCode.ParseError, `Parse error: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (Array.isArray(value)) {
      // MCP 2025-06-18 removed JSON-RPC batching; answering each element would promise what the protocol no longer has.
      this.reject(null, ErrorCode.InvalidRequest, "Invalid Request: batches (JSON arrays) are not supported; send one message per line");
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.reject(idOf(value), ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request, notification or response");
      return;
    }
    const message = parsed.data;
    if (isJSONRPCRequest(message)) this.unanswered.set(message.id, (this.unanswered.get(message.id) ?? 0) + 1);
    // A cancelled request gets no answer, so the input ending must not wait for one.
    if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const requestId: unknown = message.params?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") this.answered(requestId);
    }
    this.onmessage?.(message);
  }

  /** Answers a line the server never sees, and reports it; the connection stays open. */
  private reject(id: RequestId | null, code: ErrorCode, message: string): void {
    this.onerror?.(new Error(message));
    this.write({ jsonrpc: "2.0", id, error: { code, message } }).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }

  private answered(id: RequestId): void {
    const count = this.unanswered.get(id) ?? 0;
    if (count <= 1) this.unanswered.delete(id);
    else this.unanswered.set(id, count - 1);
  }

  private async write(message: unknown): Promise<void> {
    if (this.output.write(`${JSON.stringify(message)}\n`)) return;
    try {
      await once(this.output, "drain", { signal: this.closing.signal });
    } catch (error) {
      // Closed while waiting: the line is queued in the stream already, and nobody waits on this connection any more.
      if (!this.closing.signal.aborted) throw error;
    }
  }
}

/** The id of a request that failed validation, when it has one a client could match; otherwise null, as JSON-RPC says. */
function idOf(value: unknown): RequestId | null {
  if (typeof value !== "object" || value === null || !("id" in value)) return null;
  const { id } = value;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** `10485760 bytes (10 MiB)`: the exact limit, and the size people think in. */
function describeBytes(sizeBytes: number): string {
  const mebibytes = sizeBytes / 1024 / 1024;
  return mebibytes >= 1 ? `${sizeBytes} bytes (${Number(mebibytes.toFixed(2))} MiB)` : `${sizeBytes} bytes`;
}
