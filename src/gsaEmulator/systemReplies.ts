/**
 * The System API v2's answer shapes, as reference/gsa-system-api-v2.md §0 documents them: `{"data": …}` for success,
 * `{"error": …}` for its documented failures, the paginated list envelope, and reading a request's fields from a
 * JSON or form body.
 * Must never decide what a route does, and never throw on a client's body.
 */
import { jsonReply, type Reply } from './httpIo.js';
import { asInteger, normaliseInput, type InputFields } from './validation.js';

export function errorReply(status: number, error: string): Reply {
  return jsonReply(status, { error });
}

export function dataReply(data: unknown): Reply {
  return jsonReply(200, { data });
}

export const NOT_FOUND_REPLY = errorReply(404, 'Not found');

export type FieldsRead = { readonly ok: true; readonly fields: InputFields } | { readonly ok: false; readonly reply: Reply };

/**
 * The body's fields, JSON (`application/json`, `+json`) or form-urlencoded (anything else, as Laravel reads a form
 * without a content type); strings trimmed and blanks dropped as Laravel's middleware does. A body that is not
 * JSON, or not a JSON object, is a 400 in the API's `{"error"}` shape. [inference: the docs show no such answer.]
 */
export function readFields(contentType: string | undefined, body: Buffer): FieldsRead {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const text = body.toString('utf8');
  if (mediaType !== 'application/json' && !mediaType.endsWith('+json')) {
    return { ok: true, fields: normaliseInput(new URLSearchParams(text)) };
  }
  if (text.trim() === '') return { ok: true, fields: normaliseInput([]) };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reply: errorReply(400, 'The request body is not valid JSON.') };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reply: errorReply(400, 'The request body must be a JSON object.') };
  }
  return { ok: true, fields: normaliseInput(Object.entries(value)) };
}

/** A field as text: strings as they are, numbers written out (a JSON Steam id may come as a number); else undefined. */
export function textField(fields: InputFields, key: string): string | undefined {
  const value = fields.get(key);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Laravel's default page size, and the docs' bounds for `per_page`. */
const DEFAULT_PER_PAGE = 20;
const MAX_PER_PAGE = 100;

/**
 * Laravel's LengthAwarePaginator JSON for `items`: `page` and `per_page` from the query, out-of-range values clamped
 * into 1…last page and 1…100 [inference: the docs give the bounds, not what happens past them]. `url` is the route's
 * absolute URL without a query.
 */
export function paginated(items: readonly unknown[], query: URLSearchParams, url: string): Reply {
  const perPage = clamp(asInteger(query.get('per_page') ?? '') ?? DEFAULT_PER_PAGE, 1, MAX_PER_PAGE);
  const total = items.length;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const page = clamp(asInteger(query.get('page') ?? '') ?? 1, 1, Number.MAX_SAFE_INTEGER);
  const data = items.slice((page - 1) * perPage, page * perPage);
  const pageUrl = (n: number): string => `${url}?page=${n}`;
  const from = data.length === 0 ? null : (page - 1) * perPage + 1;
  const to = from === null ? null : from + data.length - 1;
  const pageLinks = Array.from({ length: lastPage }, (_, i) => ({ url: pageUrl(i + 1), label: String(i + 1), active: i + 1 === page }));
  return jsonReply(200, {
    data,
    links: {
      first: pageUrl(1),
      last: pageUrl(lastPage),
      prev: page > 1 ? pageUrl(page - 1) : null,
      next: page < lastPage ? pageUrl(page + 1) : null,
    },
    meta: {
      current_page: page,
      from,
      last_page: lastPage,
      links: [
        { url: page > 1 ? pageUrl(page - 1) : null, label: '&laquo; Previous', active: false },
        ...pageLinks,
        { url: page < lastPage ? pageUrl(page + 1) : null, label: 'Next &raquo;', active: false },
      ],
      path: url,
      per_page: perPage,
      to,
      total,
    },
  });
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
