// Reads a text/event-stream body. The network splits it at arbitrary bytes (mid-line, even mid-character), so bytes
// are decoded as a stream and lines are only handled once their newline has arrived.

/** Yields the data of each event in a server-sent events body, in order, however the bytes were chunked. */
export async function* readServerSentEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  let data: string[] = [];

  // Returns the finished event's data when `line` is the blank line that ends it.
  const takeLine = (rawLine: string): string | undefined => {
    const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    if (line === "") {
      const event = data.length > 0 ? data.join("\n") : undefined;
      data = [];
      return event;
    }
    // Other fields (event:, id:, retry:) and comments (": keep-alive") carry nothing an OpenAI stream needs.
    if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
    return undefined;
  };

  for await (const chunk of body) {
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const event = takeLine(line);
      if (event !== undefined) yield event;
    }
  }
  // Some servers close straight after the last `data:` line, without the blank line that should end it.
  for (const line of [pending + decoder.decode(), ""]) {
    const event = takeLine(line);
    if (event !== undefined) yield event;
  }
}
