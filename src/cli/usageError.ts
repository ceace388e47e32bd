// The error a command throws when its arguments are wrong; main prints it with the usage line and exits 2.

export class UsageError extends Error {
  readonly code = 'usage';

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
