/**
 * The page's evaluation views: an eval's report (`/evals/<id>`: its summary and a row per case,
 * regressions first), an experiment (`/experiments/<id>`: a row per variant, the tests beside the
 * control, a stop button), and the run page's buttons that save a chain into a dataset.
 */
import { apiJson, post } from './api';
import { count, enc, h, messageOf, runLink, say, sleep, type Child } from './dom';
import type { EvalView, ExperimentView, Outcome } from './reportTypes';

function pct(r: number | undefined | null): string {
  return r === undefined || r === null ? '—' : `${(r * 100).toFixed(1)}%`;
}

function msText(v: number | undefined | null): string {
  return v === undefined || v === null ? '—' : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${Math.round(v)} ms`;
}

/** A table in a box that scrolls sideways on a narrow screen; the columns listed in wrap (by index) wrap their text. */
function tableOf(head: string[], rows: { cls?: string; cells: Child[] }[], wrap: number[] = []): HTMLDivElement {
  const table = h('table', { class: 'report' }, [
    h('thead', {}, [
      h(
        'tr',
        {},
        head.map((c) => h('th', { scope: 'col', text: c })),
      ),
    ]),
    h(
      'tbody',
      {},
      rows.map((r) =>
        h(
          'tr',
          { class: r.cls || '' },
          r.cells.map((c, i) => h('td', { class: wrap.indexOf(i) >= 0 ? 'wrap' : '' }, [c])),
        ),
      ),
    ),
  ]);
  return h('div', { class: 'report' }, [table]);
}

function outcomeText(o: Outcome): string {
  return o.error ? `${o.status} (${o.error})` : o.status;
}

export async function showEval(main: HTMLElement, id: string): Promise<void> {
  document.title = `Eval ${id} · baton`;
  const body = h('div', {}, [h('p', { class: 'muted', text: 'Loading…' })]);
  main.replaceChildren(h('h1', {}, ['Eval']), h('p', { class: 'muted small chain-id', text: id }), body);
  let got: EvalView;
  for (;;) {
    try {
      got = await apiJson<EvalView>(`v1/evals/${enc(id)}`);
    } catch (e) {
      if (messageOf(e) !== 'unauthorized')
        body.replaceChildren(h('p', { class: 'problem', text: `Could not load the eval: ${messageOf(e)}` }));
      return;
    }
    if (got.status !== 'running') break;
    body.replaceChildren(h('p', { text: `Running: ${got.progress.done} of ${got.progress.total} cases done.` }));
    await sleep(2000);
  }
  if (got.status !== 'completed' || !got.report) {
    body.replaceChildren(h('p', { class: 'problem', text: `The eval ${got.status}.` }));
    return;
  }
  const r = got.report;
  const s = r.summary;
  const breached = s.threshold.breached;
  body.replaceChildren(
    h(
      'p',
      { class: 'facts' },
      [
        `team ${s.team.id}`,
        count(s.cases, 'case'),
        `route agreement ${pct(s.routeAgreement.ratio)}`,
        `outcome agreement ${pct(s.outcomeAgreement.ratio)}`,
        `passed ${pct(s.passed.ratio)}`,
        count(s.modelCalls, 'model call'),
        `${s.reused} answers reused`,
      ].map((t) => h('span', { text: t })),
    ),
    h('p', {
      class: breached.length ? 'problem' : '',
      text: breached.length
        ? `Threshold breached: ${breached.join('; ')}`
        : `Threshold holds (${s.threshold.rules.map((x) => `${x.metric}${x.op}${x.value}`).join(', ')})`,
    }),
    tableOf(
      ['verdict', 'case', 'recorded route', 'candidate route', 'outcome', 'calls', 'reused', 'first difference'],
      r.cases.map((c) => ({
        cls: c.verdict,
        cells: [
          h('span', {
            class: `badge ${c.verdict === 'regression' || c.verdict === 'fail' ? 'failed' : 'completed'}`,
            text: c.verdict,
          }),
          c.source.kind === 'chain' && c.source.workflowId ? runLink(c.source.workflowId) : c.id,
          c.recorded ? c.recorded.route.join(' → ') : '—',
          c.candidate.workflowId
            ? h('span', {}, [runLink(c.candidate.workflowId, c.candidate.route.join(' → ') || '(none)')])
            : '—',
          c.recorded && !c.outcomeAgrees
            ? `${outcomeText(c.recorded.outcome)} → ${outcomeText(c.candidate.outcome)}`
            : outcomeText(c.candidate.outcome),
          String(c.candidate.usage.modelCalls),
          String(c.candidate.reused),
          c.firstDifference
            ? `step ${c.firstDifference.step} ${c.firstDifference.agent}: ${c.firstDifference.why.join(', ')}`
            : c.error || 'none: every answer reused',
        ],
      })),
      [1, 7],
    ),
  );
}

const FIGURES = ['successRate', 'approvalRejections', 'guardrailTrips', 'latency', 'tokens', 'handoffs'] as const;

export async function showExperiment(main: HTMLElement, id: string): Promise<void> {
  document.title = `Experiment ${id} · baton`;
  const body = h('div', {}, [h('p', { class: 'muted', text: 'Loading…' })]);
  main.replaceChildren(h('h1', {}, [`Experiment ${id}`]), body);
  async function load(): Promise<void> {
    let st: ExperimentView;
    try {
      st = await apiJson<ExperimentView>(`v1/experiments/${enc(id)}`);
    } catch (e) {
      if (messageOf(e) !== 'unauthorized')
        body.replaceChildren(h('p', { class: 'problem', text: `Could not load the experiment: ${messageOf(e)}` }));
      return;
    }
    const x = st.experiment;
    const d = x.definition;
    const stopWith = (winner: string) => async () => {
      try {
        await post(`v1/experiments/${enc(id)}/stop`, { winner });
        say(`Stopped: new chains go to ${winner}`);
        void load();
      } catch (e) {
        say(messageOf(e));
      }
    };
    const stop =
      x.status === 'running'
        ? h(
            'div',
            { class: 'actions' },
            d.variants.map((v) =>
              h('button', { type: 'button', onclick: stopWith(v.name), text: `Stop: all to ${v.name}` }),
            ),
          )
        : null;
    body.replaceChildren(
      h('p', { class: 'facts' }, [
        h('span', {
          text: x.status === 'stopped' ? `stopped: new chains go to ${x.winner}` : `running since ${x.startedAt}`,
        }),
        h('span', { text: `split by ${d.key || 'id'}` }),
      ]),
      tableOf(
        [
          'variant',
          'chains',
          'success',
          'handoffs/chain',
          'approvals rejected',
          'guardrail trips',
          'tokens/chain',
          'cost',
          'latency p50',
          'p95',
        ],
        st.variants.map((v) => ({
          cells: [
            v.variant,
            String(v.chains) + (v.running ? ` (${v.running} running)` : ''),
            `${pct(v.successRate)} (${v.completed}/${v.completed + v.failed})`,
            v.handoffs.mean === undefined ? '—' : v.handoffs.mean.toFixed(2),
            `${v.approvals.rejected}/${v.approvals.asked}`,
            String(v.guardrailTrips.total),
            v.tokens.mean === undefined ? '—' : String(Math.round(v.tokens.mean)),
            v.cost === undefined ? '—' : v.cost.toFixed(4),
            msText(v.latencyMs.p50),
            msText(v.latencyMs.p95),
          ],
        })),
      ),
      h('h2', { text: `Against ${d.variants[0]!.name} (significant when p < 0.05)` }),
    );
    const tests = st.comparisons.flatMap((c) =>
      FIGURES.flatMap((k) => {
        const t = c[k];
        return t
          ? [
              {
                cells: [
                  c.variant,
                  k,
                  t.test,
                  t.p.toFixed(4),
                  t.significant ? 'significant' : t.minP !== undefined && t.minP >= 0.05 ? 'too few to tell' : '',
                ],
              },
            ]
          : [];
      }),
    );
    body.append(
      tests.length
        ? tableOf(['variant', 'figure', 'test', 'p', ''], tests)
        : h('p', { class: 'muted', text: 'Nothing to compare yet: a variant has no ended chains.' }),
    );
    if (stop) body.append(stop);
  }
  await load();
}

/** The run page's dataset buttons: save the chain, marked good or bad, into a named dataset. */
export function datasetActions(id: string): HTMLDivElement {
  const name = h('input', { type: 'text', value: 'default', 'aria-label': 'Dataset', size: '12' });
  const save = (verdict: string) => async () => {
    try {
      const r = (await (await post(`v1/runs/${enc(id)}/dataset`, { verdict, dataset: name.value.trim() })).json()) as {
        dataset: string;
        line: number;
      };
      say(`Saved as ${verdict} to ${r.dataset}, line ${r.line}`);
    } catch (e) {
      say(messageOf(e));
    }
  };
  return h('div', { class: 'actions' }, [
    h('span', { class: 'muted small', text: 'Dataset' }),
    name,
    h('button', { type: 'button', onclick: save('good'), text: 'Save as good' }),
    h('button', { type: 'button', onclick: save('bad'), text: 'Save as bad' }),
  ]);
}
