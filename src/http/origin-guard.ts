import type { IncomingHttpHeaders } from 'node:http';
import { isLoopbackHost } from './loopback.js';

/** What {@link checkBrowserOrigin} accepts beyond the server's own origin. */
export interface OriginPolicy {
  /** True when the server is bound to a loopback address: the `Host` header must then name a loopback host (or one of `allowedHosts`). */
  readonly loopbackBind: boolean;
  /** Extra `Host` names accepted on a loopback bind, e.g. a name in /etc/hosts. Lower case, without port. */
  readonly allowedHosts: readonly string[];
  /** Browser origins accepted besides the server's own, e.g. `http://localhost:5173`. */
  readonly allowedOrigins: readonly string[];
}

function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1).toLowerCase();
  const i = host.lastIndexOf(':');
  return (i >= 0 ? host.slice(0, i) : host).toLowerCase();
}

/**
 * Refuses requests a web page may have made on a user's behalf (CSRF, DNS rebinding). Returns why the
 * request is refused, or undefined to let it through:
 * - on a loopback bind, a `Host` that is not a loopback name or address (a page on `evil.example`
 *   rebound to 127.0.0.1 still sends `Host: evil.example`);
 * - an `Origin` that is neither the server's own (`http://` + `Host`) nor in `allowedOrigins`
 *   (`Origin: null` included);
 * - `Sec-Fetch-Site` other than `same-origin` or `none` without an allowed `Origin`.
 * Non-browser clients (no `Origin`, no `Sec-Fetch-Site`) pass.
 */
export function checkBrowserOrigin(headers: IncomingHttpHeaders, policy: OriginPolicy): string | undefined {
  const host = headers.host ?? '';
  if (policy.loopbackBind) {
    const name = hostName(host);
    if (!isLoopbackHost(name) && !policy.allowedHosts.includes(name)) return `Host '${host.slice(0, 100)}' is not served here`;
  }
  const origin = headers.origin;
  const allowed = origin !== undefined && (policy.allowedOrigins.includes(origin) || origin.toLowerCase() === `http://${host.toLowerCase()}`);
  if (origin !== undefined && !allowed) return `cross-origin request from '${origin.slice(0, 100)}' refused`;
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none' && !allowed) return `cross-site browser request (Sec-Fetch-Site: ${site}) refused`;
  return undefined;
}

/**
 * True when the request carries headers only browsers send: `Origin` (every cross-origin and every
 * POST) or `Sec-Fetch-Site`. (`Sec-Fetch-Mode` alone is no sign: Node's fetch sends it.)
 */
export function fromBrowser(headers: IncomingHttpHeaders): boolean {
  return headers.origin !== undefined || headers['sec-fetch-site'] !== undefined;
}
