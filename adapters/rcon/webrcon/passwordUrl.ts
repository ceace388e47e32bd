// The WebRCON URL carries the password in its path (`ws://host:port/<password>`), so this module is the one place
// that builds it, and it also builds the scrubber that keeps the password out of every log line and error.
// Must never return the real URL to anything but the WebSocket constructor.

/**
 * Percent-encodes only what cannot stand in a URL path segment. Rust (Fleck) compares the raw request path with
 * `"/" + password`, so characters it would see encoded (space, `#`, `?`, `/`, `%`, non-ASCII …) make a correct
 * password fail: `passwordNeedsEncoding` lets the caller warn about that once.
 */
export function passwordPathSegment(password: string): string {
  return encodeURIComponent(password).replace(/%(21|24|26|27|28|29|2A|2B|2C|3B|3D|3A|40)/gi, (escaped) =>
    String.fromCharCode(Number.parseInt(escaped.slice(1), 16)),
  );
}

/** True when the password contains characters the URL path must encode, which Rust does not decode. */
export function passwordNeedsEncoding(password: string): boolean {
  return passwordPathSegment(password) !== password;
}

/** The real URL, for the WebSocket constructor only. */
export function webRconUrl(host: string, port: number, password: string): string {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `ws://${bracketed}:${port}/${passwordPathSegment(password)}`;
}

/** The URL as logs and errors show it: `ws://host:port/***`. */
export function redactedWebRconUrl(host: string, port: number): string {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `ws://${bracketed}:${port}/***`;
}

/**
 * A function that replaces every form of the password a library could echo with `***`: raw, or with any of its
 * characters percent-encoded (upper or lower case, so encodeURI, encodeURIComponent and our path encoding are all
 * covered, mixed too). Every text that leaves the client towards a log or an error goes through it, whatever its
 * source. Short passwords are scrubbed as well: a short secret is still a secret.
 */
export function passwordScrubber(password: string): (text: string) => string {
  if (password.length === 0) return (text) => text;
  // Code points, not grapheme clusters: each is percent-encoded on its own, which is what a URL encoder does.
  // eslint-disable-next-line @typescript-eslint/no-misused-spread
  const pattern = [...password]
    .map((char) => {
      const escapes = [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
      return `(?:${char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|${escapes})`;
    })
    .join('');
  const matcher = new RegExp(pattern, 'gi');
  // Case-insensitive matching is needed for the hex digits; it also blurs the password's letter case, which only
  // ever scrubs more, never less.
  return (text: string) => text.replace(matcher, '***');
}
