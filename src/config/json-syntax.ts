// Finds where a config file stops being JSON and says why, as line and column.
// Exists because V8's SyntaxError often has no position and quotes the surrounding text, which may hold a secret;
// so this must never return any text taken from the input.

export interface JsonSyntaxProblem {
  /** 1-based. */
  readonly line: number;
  /** 1-based, in UTF-16 code units. */
  readonly column: number;
  readonly reason: string;
}

// Thrown inside the scanner only, to unwind the recursion at the first error.
class SyntaxStop extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** The first syntax error in `text`, or null when it is valid JSON. Call it only after JSON.parse failed. */
export function locateJsonSyntaxError(text: string): JsonSyntaxProblem | null {
  try {
    new JsonScanner(text).document();
    return null;
  } catch (error) {
    if (error instanceof SyntaxStop) return { ...lineAndColumn(text, error.offset), reason: error.reason };
    // Nesting deep enough to exhaust the stack: no position, but the caller still knows the file is not JSON.
    if (error instanceof RangeError) return null;
    throw error;
  }
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastBreak = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - lastBreak };
}

class JsonScanner {
  private pos = 0;

  constructor(private readonly text: string) {}

  document(): void {
    this.whitespace();
    if (this.pos === this.text.length) this.stop('the file is empty');
    this.value();
    this.whitespace();
    if (this.pos < this.text.length) this.stop('unexpected text after the end of the JSON value');
  }

  private value(): void {
    const char = this.text[this.pos];
    if (char === undefined) this.stop('unexpected end of file: expected a value');
    else if (char === '{') this.object();
    else if (char === '[') this.array();
    else if (char === '"') this.string();
    else if (char === '-' || isDigit(char)) this.number();
    else if (char === "'") this.stop('strings must use double quotes');
    else if (!this.literal('true') && !this.literal('false') && !this.literal('null')) {
      this.stop('expected a value (text must be in double quotes)');
    }
  }

  private object(): void {
    this.pos++;
    this.whitespace();
    if (this.peek() === '}') {
      this.pos++;
      return;
    }
    for (;;) {
      const comma = this.pos - 1;
      this.whitespace();
      if (this.peek() === '}') this.stop('trailing comma before "}" is not allowed', comma);
      if (this.peek() !== '"') this.stop(this.atEnd() ? 'unexpected end of file: expected a property name' : 'expected a property name in double quotes');
      this.string();
      this.whitespace();
      if (this.peek() !== ':') this.stop('expected ":" after the property name');
      this.pos++;
      this.whitespace();
      this.value();
      this.whitespace();
      const next = this.peek();
      if (next === undefined) this.stop('unexpected end of file: missing "}"');
      this.pos++;
      if (next === '}') return;
      if (next !== ',') this.stop('expected "," or "}" (missing comma?)', this.pos - 1);
    }
  }

  private array(): void {
    this.pos++;
    this.whitespace();
    if (this.peek() === ']') {
      this.pos++;
      return;
    }
    for (;;) {
      const comma = this.pos - 1;
      this.whitespace();
      if (this.peek() === ']') this.stop('trailing comma before "]" is not allowed', comma);
      this.value();
      this.whitespace();
      const next = this.peek();
      if (next === undefined) this.stop('unexpected end of file: missing "]"');
      this.pos++;
      if (next === ']') return;
      if (next !== ',') this.stop('expected "," or "]" (missing comma?)', this.pos - 1);
    }
  }

  private string(): void {
    this.pos++;
    for (;;) {
      const char = this.text[this.pos];
      if (char === undefined) this.stop('unterminated string');
      else if (char === '"') {
        this.pos++;
        return;
      } else if (char === '\\') {
        const escape = this.text[this.pos + 1];
        if (escape === 'u') {
          if (!/^[0-9A-Fa-f]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) this.stop('invalid \\u escape in string');
          this.pos += 6;
        } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) {
          this.pos += 2;
        } else {
          this.stop('invalid escape in string (write a backslash as \\\\)');
        }
      } else if (char < ' ') {
        this.stop(char === '\n' ? 'line break inside a string (unterminated string?)' : 'control character inside a string');
      } else {
        this.pos++;
      }
    }
  }

  private number(): void {
    const match = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(this.text.slice(this.pos));
    if (match === null) this.stop('invalid number');
    this.pos += match[0].length;
    if (isDigit(this.peek() ?? '')) this.stop('numbers must not have leading zeros');
  }

  private literal(word: string): boolean {
    if (!this.text.startsWith(word, this.pos)) return false;
    this.pos += word.length;
    return true;
  }

  private whitespace(): void {
    for (;;) {
      const char = this.text[this.pos];
      if (char === ' ' || char === '\t' || char === '\n' || char === '\r') this.pos++;
      else if (char === '/' && (this.text[this.pos + 1] === '/' || this.text[this.pos + 1] === '*')) {
        this.stop('comments are not allowed in JSON');
      } else return;
    }
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  private stop(reason: string, offset = this.pos): never {
    throw new SyntaxStop(Math.min(offset, this.text.length), reason);
  }
}

function isDigit(char: string): boolean {
  return char >= '0' && char <= '9';
}
