import { equal } from "node:assert/strict";
import { clientIp } from "./client_ip.ts";

Deno.test("clientIp() believes X-Forwarded-For only from trusted proxies", () => {
  const trusted = new Set(["10.0.0.1", "10.0.0.2"]);
  equal(clientIp("203.0.113.9", "1.2.3.4", trusted), "203.0.113.9");
  equal(clientIp("10.0.0.1", "198.51.100.7, 10.0.0.2", trusted), "198.51.100.7");
  equal(clientIp("10.0.0.1", "6.6.6.6, 198.51.100.7", trusted), "198.51.100.7");
  equal(clientIp("10.0.0.1", undefined, trusted), "10.0.0.1");
  equal(clientIp("10.0.0.1", "1.2.3.4", new Set()), "10.0.0.1");
});
