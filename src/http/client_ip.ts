/**
 * The client address (docs/decisions.md#client-addresses-behind-proxies): the socket peer, unless
 * that peer is a configured trusted proxy, in which case the right-most X-Forwarded-For hop that is
 * not itself trusted. An empty trust list ignores the header entirely, so a client cannot forge its
 * address.
 */
export function clientIp(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trusted: ReadonlySet<string>,
): string | undefined {
  if (!peer || !trusted.has(peer) || !forwardedFor) return peer;
  const hops = forwardedFor.split(",").map((h) => h.trim()).filter((h) =>
    h.length > 0 && h.length <= 64
  );
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trusted.has(hops[i])) return hops[i];
  }
  return hops[0] ?? peer;
}
