// Server-sent events as a test reads them from a response body.

/** Parses a server-sent event body into its events, in order. */
export function parseEvents(body: string): { event: string; data: unknown }[] {
  return body
    .split("\n\n")
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      return event ? { event, data: JSON.parse(data) as unknown } : undefined;
    })
    .filter((event): event is { event: string; data: unknown } => event !== undefined);
}
