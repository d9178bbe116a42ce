// Keeps `web_fetch` on the public internet. A model that reads a hostile page can be told to
// fetch http://127.0.0.1:6379/ or a cloud metadata address; the worker sits next to Redis and
// maybe inside a VPC, so loopback, private, link-local and similar ranges are refused, after DNS.
// Known gap: fetch resolves the name again, so a rebinding DNS server could still switch the
// address between our check and the connection.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { BadRequestError, ForbiddenError } from '../../src/errors.js';

const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(net, prefix, 'ipv6');
}

/** Whether an IP address is in a range web_fetch must not reach. */
export function isPrivateAddress(address: string): boolean {
  // IPv4-mapped IPv6 (::ffff:127.0.0.1) is the IPv4 address in disguise.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1] as string, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Refuses a URL whose host is, or resolves to, a private or local address. */
export async function assertPublicHost(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      throw new BadRequestError(`Could not resolve the host ${url.hostname}.`);
    }
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw new ForbiddenError(`${url.hostname} is a local or private address; web_fetch only reaches public hosts.`);
  }
}
