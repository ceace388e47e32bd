// Exit codes of every command, as interfaces.md fixes them: hosts script against these numbers.

/** The command did what was asked. */
export const EXIT_OK = 0;
/** The service refused or could not be reached; the message says which. */
export const EXIT_REFUSED = 1;
/** A usage or configuration error: nothing was sent. */
export const EXIT_USAGE = 2;
