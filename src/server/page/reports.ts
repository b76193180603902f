/**
 * The page's evaluation views (plain browser JavaScript, part of the page script): an eval's report
 * (`/evals/<id>`: its summary and a row per case, regressions first), an experiment
 * (`/experiments/<id>`: a row per variant, the tests beside the control, a stop button), and the
 * run page's buttons that save a chain into a dataset.
 */
export const REPORTS_SCRIPT = String.raw`function pct(r) { return r === undefined || r === null ? '—' : (r * 100).toFixed(1) + '%'; }
function msText(v) { return v === undefined || v === null ? '—' : v >= 1000 ? (v / 1000).toFixed(2) + ' s' : Math.round(v) + ' ms'; }
/** A table in a box that scrolls sideways on a narrow screen; the columns listed in wrap (by index) wrap their text. */
function tableOf(head, rows, wrap) {
  wrap = wrap || [];
  var table = h('table', { class: 'report' }, [h('thead', {}, [h('tr', {}, head.map(function (c) { return h('th', { scope: 'col', text: c }); }))]), h('tbody', {}, rows.map(function (r) { return h('tr', { class: r.cls || '' }, r.cells.map(function (c, i) { return h('td', { class: wrap.indexOf(i) >= 0 ? 'wrap' : '' }, [c]); })); }))]);
  return h('div', { class: 'report' }, [table]);
}
function outcomeText(o) { return o.error ? o.status + ' (' + o.error + ')' : o.status; }

async function showEval(id) {
  document.title = 'Eval ' + id + ' · baton';
  var body = h('div', {}, [h('p', { class: 'muted', text: 'Loading…' })]);
  main.replaceChildren(h('h1', {}, ['Eval']), h('p', { class: 'muted small chain-id', text: id }), body);
  for (;;) {
    var got;
    try { got = await (await api('v1/evals/' + enc(id))).json(); } catch (e) { if (e.message !== 'unauthorized') body.replaceChildren(h('p', { class: 'problem', text: 'Could not load the eval: ' + e.message })); return; }
    if (got.status !== 'running') break;
    body.replaceChildren(h('p', { text: 'Running: ' + got.progress.done + ' of ' + got.progress.total + ' cases done.' }));
    await sleep(2000);
  }
  if (got.status !== 'completed') { body.replaceChildren(h('p', { class: 'problem', text: 'The eval ' + got.status + '.' })); return; }
  var r = got.report; var s = r.summary;
  var breached = s.threshold.breached;
  body.replaceChildren(
    h('p', { class: 'facts' }, ['team ' + s.team.id, count(s.cases, 'case'), 'route agreement ' + pct(s.routeAgreement.ratio), 'outcome agreement ' + pct(s.outcomeAgreement.ratio), 'passed ' + pct(s.passed.ratio), count(s.modelCalls, 'model call'), s.reused + ' answers reused'].map(function (t) { return h('span', { text: t }); })),
    h('p', { class: breached.length ? 'problem' : '', text: breached.length ? 'Threshold breached: ' + breached.join('; ') : 'Threshold holds (' + s.threshold.rules.map(function (x) { return x.metric + x.op + x.value; }).join(', ') + ')' }),
    tableOf(['verdict', 'case', 'recorded route', 'candidate route', 'outcome', 'calls', 'reused', 'first difference'], r.cases.map(function (c) {
      return { cls: c.verdict, cells: [
        h('span', { class: 'badge ' + (c.verdict === 'regression' || c.verdict === 'fail' ? 'failed' : 'completed'), text: c.verdict }),
        c.source.kind === 'chain' ? runLink(c.source.workflowId) : c.id,
        c.recorded ? c.recorded.route.join(' → ') : '—',
        c.candidate.workflowId ? h('span', {}, [runLink(c.candidate.workflowId, c.candidate.route.join(' → ') || '(none)')]) : '—',
        c.recorded && !c.outcomeAgrees ? outcomeText(c.recorded.outcome) + ' → ' + outcomeText(c.candidate.outcome) : outcomeText(c.candidate.outcome),
        String(c.candidate.usage.modelCalls), String(c.candidate.reused),
        c.firstDifference ? 'step ' + c.firstDifference.step + ' ' + c.firstDifference.agent + ': ' + c.firstDifference.why.join(', ') : (c.error || 'none: every answer reused'),
      ] };
    }), [1, 7])
  );
}

async function showExperiment(id) {
  document.title = 'Experiment ' + id + ' · baton';
  var body = h('div', {}, [h('p', { class: 'muted', text: 'Loading…' })]);
  main.replaceChildren(h('h1', {}, ['Experiment ' + id]), body);
  async function load() {
    var st;
    try { st = await (await api('v1/experiments/' + enc(id))).json(); } catch (e) { if (e.message !== 'unauthorized') body.replaceChildren(h('p', { class: 'problem', text: 'Could not load the experiment: ' + e.message })); return; }
    var x = st.experiment; var d = x.definition;
    var stop = x.status === 'running' ? h('div', { class: 'actions' }, d.variants.map(function (v) {
      return h('button', { type: 'button', onclick: async function () {
        try { await api('v1/experiments/' + enc(id) + '/stop', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ winner: v.name }) }); say('Stopped: new chains go to ' + v.name); load(); } catch (e) { say(e.message); }
      }, text: 'Stop: all to ' + v.name });
    })) : null;
    body.replaceChildren(
      h('p', { class: 'facts' }, [h('span', { text: x.status === 'stopped' ? 'stopped: new chains go to ' + x.winner : 'running since ' + x.startedAt }), h('span', { text: 'split by ' + (d.key || 'id') })]),
      tableOf(['variant', 'chains', 'success', 'handoffs/chain', 'approvals rejected', 'guardrail trips', 'tokens/chain', 'cost', 'latency p50', 'p95'], st.variants.map(function (v) {
        return { cells: [v.variant, String(v.chains) + (v.running ? ' (' + v.running + ' running)' : ''), pct(v.successRate) + ' (' + v.completed + '/' + (v.completed + v.failed) + ')', v.handoffs.mean === undefined ? '—' : v.handoffs.mean.toFixed(2), v.approvals.rejected + '/' + v.approvals.asked, String(v.guardrailTrips.total), v.tokens.mean === undefined ? '—' : String(Math.round(v.tokens.mean)), v.cost === undefined ? '—' : v.cost.toFixed(4), msText(v.latencyMs.p50), msText(v.latencyMs.p95)] };
      })),
      h('h2', { text: 'Against ' + d.variants[0].name + ' (significant when p < 0.05)' })
    );
    var tests = st.comparisons.flatMap(function (c) {
      return ['successRate', 'approvalRejections', 'guardrailTrips', 'latency', 'tokens', 'handoffs'].filter(function (k) { return c[k]; }).map(function (k) {
        return { cells: [c.variant, k, c[k].test, c[k].p.toFixed(4), c[k].significant ? 'significant' : ''] };
      });
    });
    body.append(tests.length ? tableOf(['variant', 'figure', 'test', 'p', ''], tests) : h('p', { class: 'muted', text: 'Nothing to compare yet: a variant has no ended chains.' }));
    if (stop) body.append(stop);
  }
  await load();
}

/** The run page's dataset buttons: save the chain, marked good or bad, into a named dataset. */
function datasetActions(id) {
  var name = h('input', { type: 'text', value: 'default', 'aria-label': 'Dataset', size: '12' });
  function save(verdict) {
    return async function () {
      try {
        var r = await (await api('v1/runs/' + enc(id) + '/dataset', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ verdict: verdict, dataset: name.value.trim() }) })).json();
        say('Saved as ' + verdict + ' to ' + r.dataset + ', line ' + r.line);
      } catch (e) { say(e.message); }
    };
  }
  return h('div', { class: 'actions' }, [h('span', { class: 'muted small', text: 'Dataset' }), name, h('button', { type: 'button', onclick: save('good'), text: 'Save as good' }), h('button', { type: 'button', onclick: save('bad'), text: 'Save as bad' })]);
}
`;
