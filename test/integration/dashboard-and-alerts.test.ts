// The shipped Grafana dashboard and Prometheus alert rules against a real `gsa-bridge run`: after some traffic (an
// allowed and a blocked chat line, a chat frame nobody can tie to a player, a mute check, a delivered review), every
// metric a panel, a rule or a rule test names must be one the sidecar's /metrics really exposes (or Prometheus's own `up`), and the scrape itself must pass promtool's rules. The
// dashboard is also checked for structure (unique ids, a 24-column grid without overlaps, a datasource and a
// refId on every query, every variable it uses defined). .ci/promtool-check parses every expression with promtool.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useProcessHarness } from '../fixtures/processHarness.js';
import type { SidecarProcess } from '../fixtures/sidecarProcess.js';
import { lintExposition, parseExposition } from '../fixtures/promLint.js';
import { metricNamesIn, ruleFileExpressions, type Dashboard, type DashboardPanel } from '../fixtures/promqlNames.js';

const SERVER = 'ovddykvbs';
const MALLORY = '76561198000000202';
const ALICE = '76561198000000201';
const DASHBOARD = new URL('../../deploy/grafana-dashboard.json', import.meta.url);
const ALERTS = new URL('../../deploy/prometheus-alerts.yml', import.meta.url);
const ALERT_TESTS = new URL('../../deploy/prometheus-alerts.test.yml', import.meta.url);
/** Panel types the dashboard may use: ones every Grafana since 8.x has built in. */
const PANEL_TYPES = new Set(['row', 'timeseries', 'stat', 'state-timeline']);
/** Series Prometheus makes itself for every scrape target, not the sidecar's: the GsaBridgeDown rule reads `up`. */
const PROMETHEUS_OWN = new Set(['up']);
/** Grafana's own variables, always defined. */
const BUILT_IN_VARIABLES = new Set(['__rate_interval', '__interval', '__range', '__all']);

const { writeSetup, startGsa, startSidecar, connect } = useProcessHarness({ server: SERVER, clientSecret: 'dashboard-client-secret', modToken: 'dashboard-mod-token', label: 'dashboard' });

function opsUrl(sidecar: SidecarProcess): string {
  const match = /operations endpoints on (http:\/\/127\.0\.0\.1:\d+)/.exec(sidecar.output());
  if (match?.[1] === undefined) throw new Error(`no operations endpoint address in the log:\n${sidecar.output()}`);
  return match[1];
}

/** A real sidecar's /metrics after traffic that moves every series the shipped files read. */
async function scrapeAfterTraffic(): Promise<string> {
  const setup = await writeSetup();
  const gsa = await startGsa(setup);
  gsa.mute(SERVER, MALLORY, 'muted for spam');
  const sidecar = await startSidecar(setup);
  const mod = await connect(sidecar);
  mod.send({ type: 'chat', id: 'c1', player: { steam_id: ALICE }, channel: 'global', text: 'hello' });
  await mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === 'c1');
  mod.send({ type: 'chat', id: 'c2', player: { steam_id: MALLORY }, channel: 'global', text: 'spam' });
  await mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === 'c2');
  mod.send({ type: 'chat', id: 'c3', player: { steam_id: 'not-a-steam-id' }, channel: 'global', text: 'who?' });
  await mod.waitFor((frame) => frame.type === 'error' && frame.id === 'c3');
  mod.send({ type: 'mute.check', id: 'm1', player: { steam_id: ALICE } });
  await mod.waitFor((frame) => frame.type === 'mute.status' && frame.id === 'm1');
  mod.send({ type: 'review', id: 'r1', player: { steam_id: ALICE }, stars: 5, comment: 'Great admins' });
  await mod.waitFor((frame) => frame.type === 'review.result' && frame.id === 'r1');
  const response = await fetch(`${opsUrl(sidecar)}/metrics`);
  return response.text();
}

function dashboardPanels(dashboard: Dashboard): DashboardPanel[] {
  return dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
}

function overlaps(a: DashboardPanel['gridPos'], b: DashboardPanel['gridPos']): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

describe('metricNamesIn', () => {
  it('keeps metric names and drops functions, labels, matchers, ranges, numbers and variables', () => {
    const expr = 'histogram_quantile(0.99, sum by (le, endpoint) (rate(a_seconds_bucket{instance=~"$instance",status!~"none|5.."}[$__rate_interval]))) / on (instance) group_left b_total offset 5m > 1e3 and vector($budget)';
    expect(metricNamesIn(expr)).toEqual(['a_seconds_bucket', 'b_total']);
  });
});

describe('the shipped dashboard and alert rules, against a real /metrics', () => {
  it('name only metrics the sidecar exposes, and the exposition passes promtool\'s rules', async () => {
    const text = await scrapeAfterTraffic();
    expect(lintExposition(text)).toEqual([]);
    const exposed = new Set([...parseExposition(text).values()].flatMap((family) => family.samples.map((sample) => sample.name)));
    // The traffic reached every family the files read (a histogram's _bucket samples exist only once it has labels).
    expect(exposed).toContain('gsa_bridge_api_request_duration_seconds_bucket');
    expect(exposed).toContain('gsa_bridge_chat_verdict_reasons_total');
    expect(text).toMatch(/^gsa_bridge_chat_lines_total\{server="ovddykvbs",adapter="[^"]+"\} 3$/m);
    expect(text).toMatch(/^gsa_bridge_chat_unattributed_total\{server="ovddykvbs",adapter="[^"]+",reason="unreadable"\} 1$/m);

    const dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as Dashboard;
    const queries = dashboardPanels(dashboard).flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}" ${target.refId}`, expr: target.expr })));
    for (const variable of dashboard.templating.list) {
      if (variable.type === 'query') queries.push({ where: `variable ${variable.name}`, expr: /label_values\((\w+)/.exec(variable.definition ?? '')?.[1] ?? '' });
    }
    const rules = ruleFileExpressions(await readFile(ALERTS, 'utf8'));
    const ruleTests = ruleFileExpressions(await readFile(ALERT_TESTS, 'utf8'));
    expect(rules.exprs).toHaveLength(10);
    queries.push(...rules.exprs.map(({ line, expr }) => ({ where: `prometheus-alerts.yml:${line}`, expr })));
    queries.push(...ruleTests.series.map(({ line, series }) => ({ where: `prometheus-alerts.test.yml:${line}`, expr: series })));

    const unknown = queries.flatMap(({ where, expr }) => metricNamesIn(expr).filter((name) => !exposed.has(name) && !PROMETHEUS_OWN.has(name)).map((name) => `${where}: ${name}`));
    expect(unknown).toEqual([]);
    // Every query reads some metric, except the budget line, which is the dashboard variable.
    const readingNothing = queries.filter(({ expr }) => metricNamesIn(expr).length === 0).map(({ where }) => where);
    expect(readingNothing).toEqual(['panel "API budget use" B']);
  });
});

describe('the shipped Grafana dashboard', () => {
  it('has unique panel ids, a 24-column grid without overlaps, a datasource and refId on every query, and defines every variable it uses', async () => {
    const source = await readFile(DASHBOARD, 'utf8');
    const dashboard = JSON.parse(source) as Dashboard;
    expect(dashboard).toMatchObject({ uid: 'gsa-bridge', title: 'gsa-bridge', schemaVersion: expect.any(Number) as number });
    const panels = dashboardPanels(dashboard);
    expect(new Set(panels.map((panel) => panel.id)).size).toBe(panels.length);
    const problems: string[] = [];
    const variables = new Set(dashboard.templating.list.map((variable) => variable.name));
    for (const [index, panel] of panels.entries()) {
      const { x, y, w, h } = panel.gridPos;
      if (!PANEL_TYPES.has(panel.type)) problems.push(`${panel.title}: panel type ${panel.type}`);
      if (![x, y, w, h].every(Number.isInteger) || x < 0 || y < 0 || w < 1 || h < 1 || x + w > 24) problems.push(`${panel.title}: gridPos ${JSON.stringify(panel.gridPos)}`);
      for (const other of panels.slice(index + 1)) if (overlaps(panel.gridPos, other.gridPos)) problems.push(`${panel.title} overlaps ${other.title}`);
      if (panel.type === 'row') continue;
      if (panel.datasource?.uid !== '${datasource}') problems.push(`${panel.title}: datasource ${JSON.stringify(panel.datasource)}`);
      const targets = panel.targets ?? [];
      if (targets.length === 0) problems.push(`${panel.title}: no query`);
      if (new Set(targets.map((target) => target.refId)).size !== targets.length) problems.push(`${panel.title}: repeated refId`);
      for (const target of targets) {
        if (typeof target.expr !== 'string' || target.expr.trim() === '') problems.push(`${panel.title} ${target.refId}: no expr`);
        if (target.datasource?.uid !== '${datasource}') problems.push(`${panel.title} ${target.refId}: datasource`);
      }
    }
    for (const [, name = ''] of source.matchAll(/\$\{?(\w+)\}?/g)) {
      if (!variables.has(name) && !BUILT_IN_VARIABLES.has(name)) problems.push(`variable $${name} is not defined`);
    }
    expect(problems).toEqual([]);
  });
});
