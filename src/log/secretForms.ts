// Every spelling in which a secret can come back to us: raw; JSON-escaped (as in a log line, or a PHP/Laravel
// answer that also escapes "/" and non-ASCII); form-encoded (the v1 body is application/x-www-form-urlencoded,
// and a 422 or a proxy may echo it); and percent-encoded (encodeURIComponent), in upper- and lower-case hex.
// Pure: it never logs, stores or prints a secret, it only lists what a scrubber must look for.

/** application/x-www-form-urlencoded, exactly as URLSearchParams writes the v1 request body. */
function formEncoded(secret: string): string {
  return new URLSearchParams({ s: secret }).toString().slice(2);
}

/** JSON as PHP's json_encode writes it by default: "/" as "\/", non-ASCII as \uXXXX. */
function phpJsonEscaped(jsonEscaped: string): string {
  return jsonEscaped.replace(/\//g, '\\/').replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function lowerHex(encoded: string): string {
  return encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
}

/** The forms of one secret, without duplicates. */
export function secretForms(secret: string): string[] {
  if (secret.length === 0) return [];
  const json = JSON.stringify(secret).slice(1, -1);
  const form = formEncoded(secret);
  const percent = encodeURIComponent(secret);
  const forms = new Set([secret, json, phpJsonEscaped(json), form, lowerHex(form), percent, lowerHex(percent)]);
  // An encoded form inside a JSON log line is escaped once more only when it holds a backslash or quote, which
  // encoded forms never do; the raw secret's JSON form covers the rest.
  return [...forms];
}

/** The forms of every secret, longest first, so a secret that contains another is replaced whole. */
export function scrubbableForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) for (const form of secretForms(secret)) forms.add(form);
  return [...forms].sort((a, b) => b.length - a.length);
}

/** Replaces each form in `text` with `mask`. */
export function replaceForms(text: string, forms: readonly string[], mask: string): string {
  let result = text;
  for (const form of forms) if (result.includes(form)) result = result.split(form).join(mask);
  return result;
}
