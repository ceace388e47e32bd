// deploy/pterodactyl/egg-gsa-bridge.json against what the Pterodactyl panel accepts, and against what the sidecar
// needs. Pterodactyl publishes no JSON Schema for eggs, so the schema below is written from the panel's own loader,
// pterodactyl/panel at commit 706db62c64d180f224f56c62953172c27daa5826:
// - app/Services/Eggs/EggParserService.php: `meta.version` is PTDL_v1 or PTDL_v2; which keys are read (name,
//   description, features, docker_images, file_denylist, meta.update_url, config.files/startup/logs/stop, startup,
//   scripts.installation.script/entrypoint/container, variables);
// - app/Models/Egg.php `$validationRules`, checked when the imported egg is saved: name max 191, author an email,
//   docker_images at least one, each max 191 and matching its regex, startup a string, config_stop max 191,
//   config_startup/config_logs/config_files JSON (so in the file they are strings holding JSON);
// - app/Models/EggVariable.php `$validationRules` and RESERVED_ENV_NAMES: name 1–191, env_variable `^\w{1,191}$` and
//   not reserved, default_value a string, user_viewable/user_editable booleans, rules a required string;
// - app/Traits/Services/ValidatesValidationRules.php: rules must be Laravel validation rules (the admin page refuses
//   an unknown one); the rule names below are the Laravel rules eggs use.
// Then what the sidecar needs: the startup runs `run --config`, no secret in the startup line, every variable used.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ENVIRONMENT_OVERRIDES } from '../../src/config/index.js';
import { PRODUCT_NAME } from '../../src/version.js';

const EGG_FILE = 'deploy/pterodactyl/egg-gsa-bridge.json';
const RESERVED_ENV_NAMES = ['SERVER_MEMORY', 'SERVER_IP', 'SERVER_PORT', 'ENV', 'HOME', 'USER', 'STARTUP', 'SERVER_UUID', 'UUID'];
const DOCKER_IMAGE = /^[\w#./\- ]*\|?~?[\w./\-:@ ]*$/;
/** Variables whose value is a secret: never in the startup line (it shows in the panel and in `ps`). */
const SECRET_VARIABLE = /SECRET|TOKEN|PASSWORD|KEY/;
/** Signals the sidecar drains on (`^C` is the panel's name for an interrupt, sent as a container stop). */
const STOPS = ['^C', '^SIGINT', '^SIGTERM'];

/** A string holding a JSON object, as the panel stores config.files, config.startup and config.logs. */
const jsonObjectString = z.string().refine((text) => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}, 'must be a string holding a JSON object');

const variableSchema = z
  .object({
    name: z.string().min(1).max(191),
    description: z.string(),
    env_variable: z
      .string()
      .regex(/^\w{1,191}$/, 'must be letters, digits and _')
      .refine((name) => !RESERVED_ENV_NAMES.includes(name.toUpperCase()), 'is reserved by the panel'),
    default_value: z.string(),
    user_viewable: z.boolean(),
    user_editable: z.boolean(),
    rules: z.string().min(1),
    field_type: z.literal('text').optional(),
  })
  .strict();

const eggSchema = z
  .object({
    _comment: z.string().optional(),
    meta: z.object({ version: z.literal('PTDL_v2'), update_url: z.string().nullable().optional() }).strict(),
    exported_at: z.iso.datetime({ offset: true }),
    name: z.string().min(1).max(191),
    author: z.email(),
    description: z.string().nullable(),
    features: z.array(z.string()).nullable(),
    docker_images: z.record(z.string(), z.string().min(1).max(191).regex(DOCKER_IMAGE)).refine((images) => Object.keys(images).length > 0, 'needs at least one image'),
    file_denylist: z.array(z.string()),
    startup: z.string().min(1),
    config: z.object({ files: jsonObjectString, startup: jsonObjectString, logs: jsonObjectString, stop: z.string().min(1).max(191) }).strict(),
    scripts: z.object({ installation: z.object({ script: z.string().min(1), container: z.string().min(1).regex(DOCKER_IMAGE), entrypoint: z.string().min(1) }).strict() }).strict(),
    variables: z.array(variableSchema),
  })
  .strict();

type Egg = z.infer<typeof eggSchema>;

/** Laravel rules an egg variable may use, with how many parameters each takes (min, max). */
const LARAVEL_RULES: Readonly<Record<string, readonly [number, number]>> = {
  required: [0, 0],
  nullable: [0, 0],
  sometimes: [0, 0],
  string: [0, 0],
  integer: [0, 0],
  numeric: [0, 0],
  boolean: [0, 0],
  url: [0, 0],
  email: [0, 0],
  alpha: [0, 0],
  alpha_dash: [0, 0],
  alpha_num: [0, 0],
  ip: [0, 0],
  json: [0, 0],
  uuid: [0, 0],
  in: [1, Infinity],
  not_in: [1, Infinity],
  starts_with: [1, Infinity],
  ends_with: [1, Infinity],
  min: [1, 1],
  max: [1, 1],
  size: [1, 1],
  digits: [1, 1],
  between: [2, 2],
  digits_between: [2, 2],
  regex: [1, 1],
};
const NUMERIC_PARAMETERS = new Set(['min', 'max', 'size', 'digits', 'between', 'digits_between']);

/** What is wrong with one variable's rule string, as the panel would read it (split on `|`, then `name:params`). */
function ruleProblems(rules: string): string[] {
  const problems: string[] = [];
  for (const rule of rules.split('|')) {
    const colon = rule.indexOf(':');
    const name = colon === -1 ? rule : rule.slice(0, colon);
    const arity = LARAVEL_RULES[name];
    if (arity === undefined) {
      problems.push(`unknown rule "${name}"`);
      continue;
    }
    const parameters = colon === -1 ? [] : name === 'regex' ? [rule.slice(colon + 1)] : rule.slice(colon + 1).split(',');
    if (parameters.length < arity[0] || parameters.length > arity[1]) problems.push(`rule "${name}" takes ${arity[0]}–${arity[1]} parameters, got ${parameters.length}`);
    if (NUMERIC_PARAMETERS.has(name) && parameters.some((parameter) => !/^\d+$/.test(parameter))) problems.push(`rule "${name}" takes numbers`);
  }
  return problems;
}

/** Whether a default value passes the rules the panel checks a server's variable against (empty: only if nullable). */
function defaultProblems(value: string, rules: string): string[] {
  const list = rules.split('|');
  if (value === '') return list.includes('nullable') || list.includes('required') ? [] : ['an empty default needs "nullable" (or "required", to make the host fill it in)'];
  const problems: string[] = [];
  const numeric = list.includes('integer') || list.includes('numeric');
  for (const rule of list) {
    const [name, parameters = ''] = rule.split(/:(.*)/s);
    if (name === 'in' && !parameters.split(',').includes(value)) problems.push(`default "${value}" is not one of ${parameters}`);
    if (name === 'integer' && !/^-?\d+$/.test(value)) problems.push(`default "${value}" is not an integer`);
    if (name === 'max' && (numeric ? Number(value) : value.length) > Number(parameters)) problems.push(`default "${value}" is over max:${parameters}`);
    if (name === 'min' && (numeric ? Number(value) : value.length) < Number(parameters)) problems.push(`default "${value}" is under min:${parameters}`);
  }
  return problems;
}

/** Every problem of an egg: the panel's schema first, then what the sidecar needs of it. */
function eggProblems(raw: unknown): string[] {
  const parsed = eggSchema.safeParse(raw);
  if (!parsed.success) return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  const egg: Egg = parsed.data;
  const problems: string[] = [];
  const script = egg.scripts.installation.script;
  if (!/\bbin\/gsa-bridge\.js run --config \S+/.test(egg.startup)) problems.push('startup: must run `gsa-bridge.js run --config FILE`');
  if (!STOPS.includes(egg.config.stop)) problems.push(`config.stop: must be one of ${STOPS.join(', ')} (the sidecar drains on SIGINT and SIGTERM)`);
  const done = (JSON.parse(egg.config.startup) as { done?: unknown }).done;
  if (done !== `${PRODUCT_NAME} running:`) problems.push(`config.startup: "done" must be the line run logs once it listens ("${PRODUCT_NAME} running:")`);
  const sidecarReads = new Set(ENVIRONMENT_OVERRIDES.map((override) => override.variable));
  const names = new Set<string>();
  for (const variable of egg.variables) {
    const at = `variables.${variable.env_variable}`;
    if (names.has(variable.env_variable)) problems.push(`${at}: declared twice`);
    names.add(variable.env_variable);
    for (const problem of ruleProblems(variable.rules)) problems.push(`${at}.rules: ${problem}`);
    for (const problem of defaultProblems(variable.default_value, variable.rules)) problems.push(`${at}.default_value: ${problem}`);
    const name = variable.env_variable;
    const used = new RegExp(`\\{\\{${name}\\}\\}|\\$\\{?${name}\\b|env\\.${name}\\b`);
    if (!used.test(egg.startup) && !used.test(script) && !sidecarReads.has(name)) problems.push(`${at}: used neither by the startup line, the install script nor the sidecar`);
    if (SECRET_VARIABLE.test(name) && egg.startup.includes(name)) problems.push(`startup: holds the secret ${name}; the sidecar reads it from the environment`);
  }
  // The variables Pterodactyl passes hold the secret; the startup line is shown in the panel and in `ps`.
  if (/\{\{|\$\{?[A-Z_]/.test(egg.startup)) problems.push('startup: takes no variable; the sidecar reads its settings from config.json and the environment');
  return problems;
}

function readEgg(): Egg {
  return JSON.parse(readFileSync(EGG_FILE, 'utf8')) as Egg;
}

/** A copy of the shipped egg with one change, for the cases that must be refused. */
function mutated(change: (egg: Egg) => void): Egg {
  const egg = structuredClone(readEgg());
  change(egg);
  return egg;
}

function variable(egg: Egg, name: string): Egg['variables'][number] {
  const found = egg.variables.find((candidate) => candidate.env_variable === name);
  if (found === undefined) throw new Error(`the egg has no variable ${name}`);
  return found;
}

describe('the Pterodactyl egg', () => {
  it('passes the schema written from the panel, and what the sidecar needs of it', () => {
    expect(eggProblems(readEgg())).toEqual([]);
  });

  it('passes the client id and secret as variables, which the sidecar reads from the environment', () => {
    const egg = readEgg();
    expect(variable(egg, 'GSA_CLIENT_ID').rules).toMatch(/^required\|/);
    expect(variable(egg, 'GSA_CLIENT_SECRET').rules).toMatch(/^required\|/);
    expect(ENVIRONMENT_OVERRIDES.map((override) => override.variable)).toEqual(expect.arrayContaining(['GSA_CLIENT_ID', 'GSA_CLIENT_SECRET', 'GSA_BRIDGE_LOG_LEVEL']));
    // The install script never handles the secret: it is not written to config.json.
    expect(egg.scripts.installation.script).not.toContain('GSA_CLIENT_SECRET');
  });

  it('has an install script bash can parse', () => {
    const check = spawnSync('bash', ['-n'], { input: readEgg().scripts.installation.script, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it.each<[string, (egg: Egg) => void, RegExp]>([
    ['a secret in the startup line', (egg) => (egg.startup += ' # {{GSA_CLIENT_SECRET}}'), /startup: holds the secret GSA_CLIENT_SECRET/],
    ['a startup that does not run the sidecar', (egg) => (egg.startup = 'node ./node_modules/gsa-bridge/bin/gsa-bridge.js demo'), /must run `gsa-bridge\.js run --config FILE`/],
    ['a misspelt rule', (egg) => (variable(egg, 'GSA_SERVER_NAME').rules = 'requried|string'), /GSA_SERVER_NAME\.rules: unknown rule "requried"/],
    ['a rule with a word for a number', (egg) => (variable(egg, 'GSA_SERVER_NAME').rules = 'required|string|max:many'), /rule "max" takes numbers/],
    ['a default outside its own `in:` list', (egg) => (variable(egg, 'GSA_BRIDGE_LOG_LEVEL').default_value = 'verbose'), /default "verbose" is not one of/],
    ['a reserved variable name', (egg) => (variable(egg, 'GSA_SERVER_ID').env_variable = 'SERVER_PORT'), /env_variable: is reserved by the panel/],
    ['a variable nothing reads', (egg) => egg.variables.push({ ...variable(egg, 'GSA_SERVER_ID'), env_variable: 'GSA_UNUSED' }), /GSA_UNUSED: used neither/],
    ['user_viewable as a number, as some old exports have it', (egg) => Object.assign(variable(egg, 'GSA_CLIENT_ID'), { user_viewable: 1 }), /user_viewable: .*expected boolean/i],
    ['config.startup as an object instead of a JSON string', (egg) => Object.assign(egg.config, { startup: { done: 'gsa-bridge running:' } }), /config\.startup: .*string/i],
    ['an author that is not an email', (egg) => (egg.author = 'gsa-bridge'), /author: /],
    ['a stop command the sidecar does not know', (egg) => (egg.config.stop = 'stop'), /config\.stop: must be one of/],
    ['a wrong ready line', (egg) => (egg.config.startup = JSON.stringify({ done: 'ready' })), /config\.startup: "done" must be/],
    ['a PTDL_v1 export', (egg) => (egg.meta.version = 'PTDL_v1' as 'PTDL_v2'), /meta\.version/],
  ])('refuses a copy with %s', (_label, change, problem) => {
    const problems = eggProblems(mutated(change));
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
  });
});
