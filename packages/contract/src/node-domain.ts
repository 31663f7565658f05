import { stringFromParser } from './primitives.ts';
import type { Result } from './result.ts';
import { err, ok } from './result.ts';

/**
 * A node is identified by its domain: `host[:port]` where host is a DNS name, a dotted-quad
 * IPv4 address or a bracketed IPv6 address, and port is 1–65535. Domains are compared as
 * strings, so parsing normalises: DNS names lower-cased, IPv6 in its canonical compressed form,
 * no leading zeros in the port.
 */
export interface DomainParts {
  /** `example.org`, `127.0.0.1` or `[::1]` (IPv6 keeps its brackets). */
  host: string;
  port: number | undefined;
}

const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const PORT = /^[1-9][0-9]{0,4}$/;

function parseIpv4(host: string): Result<string> {
  const match = IPV4.exec(host);
  if (!match) return err(`"${host}" is not a dotted-quad IPv4 address`);
  for (const octet of match.slice(1)) {
    // Leading zeros are read as octal by some resolvers: refuse the ambiguity.
    if (Number(octet) > 255 || (octet.length > 1 && octet.startsWith('0'))) {
      return err(`"${host}" is not a valid IPv4 address`);
    }
  }
  return ok(host);
}

function parseIpv6(bracketed: string): Result<string> {
  const inner = bracketed.slice(1, -1);
  if (!/^[0-9a-f:.]+$/.test(inner))
    return err(`"${bracketed}" is not an IPv6 address (zone ids are not allowed)`);
  try {
    // WHATWG URL parsing validates the address and gives its canonical compressed form.
    return ok(new URL(`http://${bracketed}/`).hostname);
  } catch {
    return err(`"${bracketed}" is not a valid IPv6 address`);
  }
}

function parseDnsName(host: string): Result<string> {
  if (host.length > 253) return err('host name is longer than 253 characters');
  const labels = host.split('.');
  for (const label of labels) {
    if (label === '') return err(`"${host}" has an empty label`);
    if (!DNS_LABEL.test(label))
      return err(`"${label}" is not a valid DNS label (letters, digits, inner hyphens, ≤63)`);
  }
  // `1.2.3` or `example.123` would be read as an IPv4 shorthand by URL parsers.
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? ''))
    return err(`"${host}" looks like an IP address but is not a dotted quad`);
  return ok(host);
}

export function parseDomainParts(input: string): Result<DomainParts> {
  if (typeof input !== 'string') return err('domain must be a string');
  if (input === '') return err('domain is empty');
  if (input.length > 262) return err('domain is too long');
  const lower = input.toLowerCase();
  let host: string;
  let portText: string | undefined;
  if (lower.startsWith('[')) {
    const close = lower.indexOf(']');
    if (close < 0) return err('IPv6 address is missing its closing "]"');
    host = lower.slice(0, close + 1);
    const rest = lower.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return err(`unexpected "${rest}" after the IPv6 address`);
      portText = rest.slice(1);
    }
  } else {
    const parts = lower.split(':');
    if (parts.length > 2) return err('IPv6 addresses must be written in brackets, e.g. [::1]:8080');
    host = parts[0] ?? '';
    portText = parts[1];
  }
  let port: number | undefined;
  if (portText !== undefined) {
    if (!PORT.test(portText) || Number(portText) > 65535)
      return err(`port "${portText}" is not an integer from 1 to 65535`);
    port = Number(portText);
  }
  if (host === '') return err('domain has no host');
  let parsedHost: Result<string>;
  if (host.startsWith('[')) parsedHost = parseIpv6(host);
  else if (/^[0-9.]+$/.test(host)) parsedHost = parseIpv4(host);
  else parsedHost = parseDnsName(host);
  if (!parsedHost.ok) return parsedHost;
  return ok({ host: parsedHost.value, port });
}

export function formatDomain(parts: DomainParts): string {
  return parts.port === undefined ? parts.host : `${parts.host}:${parts.port}`;
}

/** Validates and normalises a node domain (`Beta.Example:08443` is refused, `Beta.Example` → `beta.example`). */
export function parseDomain(input: string): Result<string> {
  const parts = parseDomainParts(input);
  return parts.ok ? ok(formatDomain(parts.value)) : parts;
}

/** The one domain schema: used for every `domain`, `nodeDomain`, `sender`, seed, … field. */
export const domainSchema = stringFromParser(parseDomain);

/** `localhost`, `127.0.0.0/8` and `[::1]`, with any port: the hosts allowed plain HTTP. */
export function isLoopbackDomain(domain: string): boolean {
  const parts = parseDomainParts(domain);
  if (!parts.ok) return false;
  const { host } = parts.value;
  return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
}

/** `https://{domain}`, or `http://{domain}` for loopback development nodes. Throws on an invalid domain. */
export function baseUrlForDomain(domain: string): string {
  const parsed = parseDomain(domain);
  if (!parsed.ok) throw new TypeError(`baseUrlForDomain: ${parsed.reason}`);
  return `${isLoopbackDomain(parsed.value) ? 'http' : 'https'}://${parsed.value}`;
}
