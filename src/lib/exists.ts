/**
 * Whether anything is at `path`. A link answers for itself, so a dangling one exists, unless
 * `followLinks` asks about what it points to.
 */
export async function exists(
  path: string,
  options: { followLinks?: boolean } = {},
): Promise<boolean> {
  try {
    await (options.followLinks ? Deno.stat(path) : Deno.lstat(path));
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}
