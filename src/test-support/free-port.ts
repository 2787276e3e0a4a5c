// Finds a TCP port on 127.0.0.1 that nothing listens on, for the servers tests start (Postgres, Redis).
import { createServer, type AddressInfo } from "node:net";

/** A port the system just handed out and released; another process could take it first, so callers retry on a clash. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
