// Turns zod issues into ConfigProblems a host can act on: a JSON path and a short message ("must be 1–65535").
// Must never put the received value into a message: a wrong-typed clientSecret is still a secret.
import { z } from 'zod';
import type { ConfigProblem } from './errors.js';
import { closestKey } from './keySuggestion.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_KEY_LENGTH = 64;

/** `['servers', 0, 'adapters', 1, 'port']` → `servers[0].adapters[1].port`; the empty path is `(root)`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && IDENTIFIER.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${quoteKey(String(segment))}]`;
  }
  return text === '' ? '(root)' : text;
}

// Key names come from the file, so they are escaped and capped before they reach a terminal.
function quoteKey(key: string): string {
  return JSON.stringify(key.length > MAX_KEY_LENGTH ? `${key.slice(0, MAX_KEY_LENGTH)}…` : key);
}

const EXPECTED: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Pass to zod's parse as `{ error: configErrorMap }`; schemas that set their own message keep it. */
export const configErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined || issue.expected === 'nonoptional') return 'required';
      return `must be ${EXPECTED[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of: ${issue.values.map(String).join(', ')}`;
    case 'invalid_union': {
      // A discriminated union reports the allowed tags; a missing tag is "required", a wrong one lists them.
      const options = 'options' in issue && Array.isArray(issue.options) ? issue.options.map(String) : [];
      const discriminator = 'discriminator' in issue && typeof issue.discriminator === 'string' ? issue.discriminator : undefined;
      if (discriminator !== undefined && !isRecord(issue.input)) return 'must be an object';
      if (options.length === 0) return 'does not match any allowed form';
      const missing = discriminator !== undefined && isRecord(issue.input) && issue.input[discriminator] === undefined;
      return missing ? `required (one of: ${options.join(', ')})` : `must be one of: ${options.join(', ')}`;
    }
    case 'too_small':
      if (issue.origin === 'string') return issue.minimum === 1 ? 'must not be empty' : `must be at least ${issue.minimum} characters`;
      if (issue.origin === 'array') return `must have at least ${issue.minimum} entries`;
      return `must be ${issue.inclusive === false ? '>' : '≥'} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `must have at most ${issue.maximum} entries`;
      return `must be ${issue.inclusive === false ? '<' : '≤'} ${issue.maximum}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      return issue.keys.map((key) => `unknown key ${quoteKey(key)}`).join(', ');
    case 'invalid_format':
      return 'has an invalid format';
    default:
      return 'is invalid';
  }
};

/** Converts a failed parse into problems, one per unknown key, naming the key and a likely intended one. */
export function issuesToProblems(issues: readonly z.core.$ZodIssue[], schema?: z.core.$ZodType): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    const path = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const known = schema === undefined ? [] : objectKeysAt(schema, issue.path);
      for (const key of issue.keys) problems.push({ path, message: unknownKeyMessage(key, known) });
    } else {
      problems.push({ path, message: issue.message });
    }
  }
  return problems;
}

function unknownKeyMessage(key: string, known: readonly string[]): string {
  const suggestion = closestKey(key, known);
  return suggestion === undefined ? `unknown key ${quoteKey(key)}` : `unknown key ${quoteKey(key)} (did you mean "${suggestion}"?)`;
}

// The keys the object schema at `path` accepts; for a union, the keys of every object option.
function objectKeysAt(schema: z.core.$ZodType, path: readonly PropertyKey[]): string[] {
  let candidates = unwrap(schema);
  for (const segment of path) {
    candidates = candidates.flatMap((candidate) => childSchemas(candidate, segment).flatMap(unwrap));
  }
  return [...new Set(candidates.flatMap(shapeKeys))];
}

function childSchemas(schema: z.core.$ZodType, segment: PropertyKey): z.core.$ZodType[] {
  if (typeof segment === 'number' && schema instanceof z.ZodArray) return [schema.element];
  if (typeof segment === 'string' && schema instanceof z.ZodObject) {
    const child = (schema.shape as Record<string, z.core.$ZodType | undefined>)[segment];
    return child === undefined ? [] : [child];
  }
  return [];
}

function shapeKeys(schema: z.core.$ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

// Defaults, optionals and unions only wrap the object that names the keys.
function unwrap(schema: z.core.$ZodType): z.core.$ZodType[] {
  if (schema instanceof z.ZodDefault || schema instanceof z.ZodPrefault || schema instanceof z.ZodOptional) {
    return unwrap(schema.unwrap());
  }
  if (schema instanceof z.ZodUnion) return schema.options.flatMap(unwrap);
  if (schema instanceof z.ZodPipe) return unwrap(schema.in);
  return [schema];
}
