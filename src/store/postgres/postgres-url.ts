// What a Postgres library location looks like, without loading the driver: the CLI reads every --library through it.

/** True for a `postgres://` or `postgresql://` library location. */
export const isPostgresUrl = (location: string): boolean => /^postgres(ql)?:\/\//i.test(location);

/** The URL with any password replaced, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://…";
  }
}
