// Finds where a config file stops being JSON and says why, as line and column, using jsonc-parser's
// error offsets. Exists because V8's SyntaxError often has no position and quotes the surrounding text,
// which may hold a secret; so this must never return any text taken from the input.
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

export interface JsonSyntaxProblem {
  /** 1-based. */
  readonly line: number;
  /** 1-based, in UTF-16 code units. */
  readonly column: number;
  readonly reason: string;
}

const REASONS: Readonly<Record<ReturnType<typeof printParseErrorCode>, string>> = {
  InvalidSymbol: 'expected a value (text must be in double quotes)',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a key in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":" after the key',
  CommaExpected: 'expected "," (missing comma?)',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'unexpected text after the end of the JSON value',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'comments are not allowed in JSON',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid \\u escape',
  InvalidEscapeCharacter: 'invalid escape character in a string',
  InvalidCharacter: 'control character in a string (use \\n, \\t, …)',
  '<unknown ParseErrorCode>': 'not valid JSON',
};

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

function describe(text: string, error: ParseError): { offset: number; reason: string } {
  const { offset } = error;
  if (text.trim().length === 0) return { offset, reason: 'the file is empty' };
  if (offset >= text.length) return { offset, reason: `unexpected end of file: ${REASONS[printParseErrorCode(error.error)]}` };
  // jsonc-parser sees `, }` as a missing key or value at the bracket; hosts see a trailing comma, so point at it.
  const closer = text[offset];
  const before = text.slice(0, offset).trimEnd();
  if ((closer === '}' || closer === ']') && before.endsWith(',')) {
    return { offset: before.length - 1, reason: `trailing comma before "${closer}" is not allowed` };
  }
  return { offset, reason: REASONS[printParseErrorCode(error.error)] };
}

/** The first syntax error in `text`, or null when it is valid JSON. Call it only after JSON.parse failed. */
export function locateJsonSyntaxError(text: string): JsonSyntaxProblem | null {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return null;
  const { offset, reason } = describe(text, first);
  return { ...lineAndColumn(text, offset), reason };
}
