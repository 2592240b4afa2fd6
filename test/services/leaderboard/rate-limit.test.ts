import { describe, expect, it } from "vitest";
import { rateLimitedClient } from "../../../src/services/leaderboard/rate-limit.ts";

describe("the client a registration is counted against", () => {
  it("without LEADERBOARD_TRUSTED_PROXIES: loopback is the trusted proxy, and a request from it alone is exempt", () => {
    const none = new Set<string>();
    expect(rateLimitedClient("127.0.0.1", undefined, none)).toBeNull();
    expect(rateLimitedClient("127.0.0.1", "203.0.113.5", none)).toBe("203.0.113.5");
    expect(rateLimitedClient("198.51.100.9", "203.0.113.5", none)).toBe("198.51.100.9");
  });

  it("with LEADERBOARD_TRUSTED_PROXIES: X-Forwarded-For is believed from the listed balancer only, loopback included", () => {
    const balancer = new Set(["127.0.0.1"]);
    // Through the balancer: the address it appended, whatever the client wrote to its left.
    expect(rateLimitedClient("127.0.0.1", "127.0.0.2", balancer)).toBe("127.0.0.2");
    expect(rateLimitedClient("127.0.0.1", "10.9.9.9, 127.0.0.3", balancer)).toBe("127.0.0.3");
    // Straight to the replica, from another loopback address: its own address, the header ignored.
    expect(rateLimitedClient("127.0.0.4", "10.9.9.9", balancer)).toBe("127.0.0.4");
    expect(rateLimitedClient("::ffff:127.0.0.4", "10.9.9.9", balancer)).toBe("127.0.0.4");
    const remote = new Set(["172.28.0.10"]);
    expect(rateLimitedClient("127.0.0.1", "10.9.9.9", remote)).toBe("127.0.0.1");
    expect(rateLimitedClient("172.28.0.10", "10.9.9.9", remote)).toBe("10.9.9.9");
    // A request the balancer made on its own behalf (no client behind it) is exempt.
    expect(rateLimitedClient("::ffff:172.28.0.10", undefined, remote)).toBeNull();
  });
});
