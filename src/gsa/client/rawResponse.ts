// What came back for one call to GSA, as the transport read it (transport.ts): the status, the headers and the body
// as text. Types only, so the transport and the dialects and response readers that judge it import it from here
// and not from each other.

/** One answer, read whole (at most transport.ts's MAX_RESPONSE_BYTES). */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}
