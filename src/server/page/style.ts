/** The approvals page's stylesheet: readable on a phone, visible focus, light and dark. */
export const PAGE_STYLE = String.raw`
:root { --fg:#1d232b; --muted:#5b6470; --bg:#f6f7f9; --card:#fff; --line:#d5dae1; --accent:#2f5fa7; --ok:#1d7a3a; --on-ok:#fff; --bad:#b3261e; --wait:#8a5a00; color-scheme: light dark; }
@media (prefers-color-scheme: dark) { :root { --fg:#e6e9ee; --muted:#a3acb8; --bg:#14171b; --card:#1d2126; --line:#353b44; --accent:#8fb4ef; --ok:#6cc08b; --on-ok:#0b1f12; --bad:#f08a80; --wait:#e0b25a; } }
* { box-sizing: border-box; }
body { margin:0; font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif; color:var(--fg); background:var(--bg); }
a { color:var(--accent); }
:focus-visible { outline:3px solid var(--accent); outline-offset:2px; }
.sr { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
.skip { position:absolute; left:-999px; } .skip:focus { left:8px; top:8px; background:var(--card); padding:4px 8px; z-index:2; }
.bar { display:flex; gap:16px; align-items:center; padding:10px 16px; background:var(--card); border-bottom:1px solid var(--line); flex-wrap:wrap; }
.brand { font-weight:700; text-decoration:none; color:var(--fg); letter-spacing:.02em; }
.bar nav a { text-decoration:none; }
.who { margin-left:auto; color:var(--muted); font-size:14px; display:flex; gap:8px; align-items:center; }
main { max-width:920px; margin:0 auto; padding:16px; }
main:focus { outline:none; }
h1 { font-size:22px; margin:8px 0 4px; } h2 { font-size:17px; margin:24px 0 8px; }
.muted { color:var(--muted); } .small { font-size:14px; }
.live { font-size:13px; color:var(--muted); } .live::before { content:"●"; margin-right:4px; color:var(--muted); } .live.on::before { color:var(--ok); }
.cards { list-style:none; padding:0; margin:0; display:grid; gap:12px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:14px 16px; }
.card:focus-within, .card:focus { border-color:var(--accent); }
.route { font-weight:600; font-size:17px; } .route .arrow { color:var(--muted); padding:0 4px; }
.meta { font-size:14px; color:var(--muted); display:flex; gap:12px; flex-wrap:wrap; }
blockquote { margin:8px 0; padding:6px 10px; border-left:3px solid var(--line); white-space:pre-wrap; overflow-wrap:anywhere; }
.chain { font-size:14px; margin:6px 0; overflow-wrap:anywhere; } .chain b { font-weight:600; }
.request { margin:6px 0; overflow-wrap:anywhere; } .request q { font-style:italic; }
.which { margin:4px 0; overflow-wrap:anywhere; } code { font:13px ui-monospace,SFMono-Regular,Menlo,monospace; overflow-wrap:anywhere; }
.chain-id { overflow-wrap:anywhere; }
label { display:block; font-size:14px; margin-top:8px; }
textarea, input[type=password] { width:100%; font:inherit; padding:8px; border:1px solid var(--line); border-radius:6px; background:var(--bg); color:var(--fg); }
textarea { min-height:44px; resize:vertical; }
textarea.args { font:14px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace; white-space:pre; overflow-wrap:normal; overflow-x:auto; }
details.signing { margin:8px 0 16px; } details.signing summary { cursor:pointer; }
.key-entry { white-space:pre-wrap; overflow-wrap:anywhere; background:var(--card); border:1px solid var(--line); border-radius:8px; padding:6px 10px; }
.signed-only { color:var(--wait); }
.actions { display:flex; gap:8px; margin-top:10px; flex-wrap:wrap; align-items:center; }
button { font:inherit; min-height:44px; padding:8px 18px; border-radius:6px; border:1px solid var(--line); background:var(--card); color:var(--fg); cursor:pointer; }
button.approve { background:var(--ok); border-color:var(--ok); color:var(--on-ok); }
.confirm { color:var(--wait); font-weight:600; }
button.reject { border-color:var(--bad); color:var(--bad); }
button:disabled { opacity:.5; cursor:not-allowed; }
button.link { min-height:0; padding:0; border:0; background:none; color:var(--accent); text-decoration:underline; }
.badge { display:inline-block; padding:1px 10px; border-radius:999px; font-size:14px; border:1px solid currentColor; }
.badge.completed { color:var(--ok); } .badge.failed, .badge.terminated, .badge.timed_out, .badge.cancelled { color:var(--bad); } .badge.awaiting_approval { color:var(--wait); } .badge.running { color:var(--accent); }
.flow { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:8px; overflow-x:auto; }
.flow svg { display:block; max-width:none; }
.flow .edge { fill:none; stroke:var(--muted); stroke-width:1.6; } .flow .head { fill:var(--muted); }
.flow .node rect { fill:#fff; stroke:#56606e; stroke-width:1.4; } .flow .node.agent rect { fill:#eef3fb; stroke:#2f5fa7; } .flow .node.failed rect { fill:#fdecec; stroke:#b3261e; }
.flow text { font:12px system-ui,sans-serif; fill:var(--fg); text-anchor:middle; } .flow text.start { text-anchor:start; } .flow .node text { fill:#1d232b; }
.flow .node.specialist rect { fill:#eef3fb; stroke:#2f5fa7; stroke-dasharray:4 3; } .flow .node.specialist.failed rect { fill:#fdecec; stroke:#b3261e; } .flow a.chain-link:hover rect, .flow a.chain-link:focus rect { stroke-width:2.6; } .flow a.chain-link text { text-decoration:underline; }
.output, .output-forming { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 12px; white-space:pre-wrap; overflow-wrap:anywhere; margin:0; font:inherit; }
.problem { color:var(--bad); }
.timeline { list-style:none; padding:0; margin:0; font-size:14px; background:var(--card); border:1px solid var(--line); border-radius:8px; }
.timeline li { display:grid; grid-template-columns:7.5em 7em 1fr; gap:8px; padding:6px 10px; border-top:1px solid var(--line); }
.timeline li:first-child { border-top:0; }
.timeline time { color:var(--muted); font-variant-numeric:tabular-nums; } .timeline .actor { font-weight:600; overflow-wrap:anywhere; } .timeline .what { overflow-wrap:anywhere; }
.facts { display:flex; gap:16px; flex-wrap:wrap; color:var(--muted); font-size:14px; margin:4px 0 0; }
.toast { position:fixed; left:50%; bottom:16px; transform:translateX(-50%); background:var(--fg); color:var(--bg); padding:10px 16px; border-radius:8px; max-width:calc(100% - 32px); display:none; }
.toast.show { display:block; } .toast a { color:inherit; }
.signin { max-width:420px; }
@media (hover:none) { .keys { display:none; } }
div.report { overflow-x:auto; margin:8px 0; } table.report { width:100%; border-collapse:collapse; font-size:14px; background:var(--card); border:1px solid var(--line); border-radius:8px; } table.report th, table.report td { text-align:left; padding:6px 8px; border-top:1px solid var(--line); vertical-align:top; white-space:nowrap; } table.report td.wrap { white-space:normal; overflow-wrap:anywhere; min-width:12em; } table.report th { border-top:0; color:var(--muted); font-weight:600; } tr.regression td, tr.fail td { background:color-mix(in srgb, var(--bad) 8%, transparent); }
input[type=text] { font:inherit; padding:6px 8px; border:1px solid var(--line); border-radius:6px; background:var(--bg); color:var(--fg); }
kbd { font:12px ui-monospace,monospace; border:1px solid var(--line); border-radius:4px; padding:0 4px; }
.filters { display:grid; grid-template-columns:repeat(auto-fill, minmax(9.5em, 1fr)); gap:8px 12px; align-items:end; background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 12px; margin:12px 0; }
.filters .field label { margin-top:0; } .filters input[type=text], .filters input[type=search], .filters select { width:100%; min-height:44px; }
.filters .check { display:flex; gap:8px; align-items:center; min-height:44px; } .filters .check label { margin:0; }
select, input[type=search] { font:inherit; padding:6px 8px; border:1px solid var(--line); border-radius:6px; background:var(--bg); color:var(--fg); }
input[type=checkbox] { width:22px; height:22px; margin:0; accent-color:var(--accent); }
.pick { display:flex; gap:8px 14px; align-items:center; flex-wrap:wrap; font-size:14px; margin-bottom:6px; }
.pick-one { display:inline-flex; gap:6px; align-items:center; min-height:32px; } .pick-one label { margin:0; font-size:14px; } .pick button.link { min-height:32px; }
.badge.overdue { color:var(--bad); font-weight:600; } .due { color:var(--muted); } .due.overdue { color:var(--bad); }
.card[data-overdue=true] { border-left:5px solid var(--bad); }
.batch { position:sticky; bottom:0; z-index:1; background:var(--card); border:2px solid var(--accent); border-radius:8px; padding:10px 12px; margin:12px 0; }
.batch-head { display:flex; gap:12px; align-items:center; flex-wrap:wrap; } .batch-summary { margin:0; font-weight:600; overflow-wrap:anywhere; }
.batch-results { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:4px 12px 8px; margin:12px 0; } .batch-results h2 { margin-top:8px; }
.outcomes { padding-left:18px; margin:4px 0; overflow-wrap:anywhere; } .outcomes li { margin:4px 0; } .outcomes li.refused strong { color:var(--bad); } .outcomes li.applied strong { color:var(--ok); }
.pager { justify-content:space-between; }
@media (max-width:600px) { .timeline li { grid-template-columns:max-content minmax(0, 1fr); column-gap:10px; } .timeline .what { grid-column:1 / -1; } main { padding:12px; } }
`;
