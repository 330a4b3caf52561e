/**
 * Largest request message the backend reads, on the fast path and through connect-node
 * (`readMaxBytes`); counted while reading, so a larger body is refused (ResourceExhausted) before
 * it is buffered. The gateway's REST limit (64 kB) is far below it.
 */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
