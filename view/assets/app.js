// evolve view: draws the page its URL names from the JSON API of the
// same server (no other network). Every text from a run directory goes
// into the DOM as text, never as HTML.
'use strict';

const main = document.getElementById('main');
const crumbs = document.getElementById('crumbs');
let timer = null; // the page's polling or replay timer

// h builds an element: h('td', {class: 'num'}, 'text', child, ...).
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of kids.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const svgNS = 'http://www.w3.org/2000/svg';
function s(tag, attrs, ...kids) {
  const el = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  for (const c of kids.flat(Infinity)) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

async function api(path) {
  const r = await fetch(path, {headers: {Accept: 'application/json'}});
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

const enc = encodeURIComponent;
const runURL = (id) => '/runs/' + enc(id);
const fmt = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x)) ? '–' : Number(x).toFixed(d);
const fmtp = (p) => (p === null || p === undefined) ? '–' : (p < 0.001 ? Number(p).toExponential(1) : Number(p).toFixed(3));
function dur(sec) {
  sec = Math.floor(sec || 0);
  if (sec >= 3600) return Math.floor(sec / 3600) + 'h' + String(Math.floor(sec / 60) % 60).padStart(2, '0') + 'm';
  if (sec >= 60) return Math.floor(sec / 60) + 'm' + String(sec % 60).padStart(2, '0') + 's';
  return sec + 's';
}
const when = (t) => (!t || t.startsWith('0001')) ? '–' : t.replace('T', ' ').slice(0, 16);
// A prompt ref is written "slug@vX.Y.Z" in versions.json.
const refKey = (r) => (typeof r === 'string' ? r : r.slug + '@' + r.version);
const refVer = (r) => refKey(r).split('@').pop();
const badge = (st) => h('span', {class: 'badge s-' + st, text: st});
// verdictBadge shows an eval's verdict: pass, improvement, regression or
// "not non-inferior".
const verdictBadge = (v) => h('span', {class: 'badge v-' + v.replace(/ /g, '-'), text: v});

function setCrumbs(...items) {
  crumbs.replaceChildren(...items.map(([label, href]) => href ? h('a', {href}, label) : h('span', {}, label)));
}

// setMain replaces the page's content (null and false children are left out).
function setMain(...kids) {
  main.replaceChildren(...kids.flat(Infinity).filter((k) => k !== null && k !== undefined && k !== false));
}

function fail(err) {
  setMain(h('p', {class: 'error', id: 'error'}, String(err.message || err)));
}

// route draws the page of the current URL.
async function route() {
  if (timer) { clearInterval(timer); timer = null; }
  const p = location.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  try {
    if (p.length === 0) return await pageRuns();
    if (p[0] === 'compare') return await pageCompare();
    if (p[0] === 'runs' && p.length === 2) return await pageRun(p[1]);
    if (p[0] === 'runs' && p[2] === 'episodes' && p.length === 3) return await pageEpisodes(p[1]);
    if (p[0] === 'runs' && p[2] === 'episodes' && p.length === 6) return await pageEpisode(p[1], p[3], p[4], p[5]);
    if (p[0] === 'runs' && p[2] === 'versions' && p.length === 4) return await pageVersion(p[1], p[3]);
    fail(new Error('no such page'));
  } catch (e) { fail(e); }
}

// ---------- / : the runs table ----------
async function pageRuns() {
  setCrumbs(['runs']);
  const picked = new Set();
  const draw = async () => {
    const d = await api('/api/runs');
    // Directories that share an ID (four evals of one name) are told
    // apart by their directory in the link text.
    const seen = {};
    for (const e of d.entries) seen[e.id] = (seen[e.id] || 0) + 1;
    const rows = d.entries.map((e) => {
      let gens = '–';
      if (e.kind === 'run') {
        const frac = e.max_generations ? e.generations / e.max_generations : 0;
        gens = h('span', {}, e.generations + '/' + e.max_generations + ' ',
          e.status === 'running' ? h('span', {class: 'progress'}, (() => { const b = h('span', {class: 'bar'}); b.style.width = Math.round(100 * frac) + 'px'; return b; })()) : null);
      }
      let test = '–';
      if (e.kind === 'run' && e.test_base !== undefined) test = fmt(e.test_base) + ' → ' + fmt(e.test_final);
      if (e.kind === 'eval') test = (e.versions || []).map((v) => v + (e.means && v in e.means ? ' ' + fmt(e.means[v]) : '')).join(', ');
      const box = h('input', {type: 'checkbox', 'data-id': e.url_id, checked: picked.has(e.url_id), onchange: (ev) => {
        if (ev.target.checked) picked.add(e.url_id); else picked.delete(e.url_id);
        cmp.disabled = picked.size !== 2;
      }});
      return h('tr', {'data-id': e.url_id},
        h('td', {}, box), h('td', {}, h('a', {href: runURL(e.url_id), class: 'run-link'}, e.id, seen[e.id] > 1 ? h('span', {class: 'muted'}, ' · ' + e.key) : null)), h('td', {}, e.kind),
        h('td', {class: 'status'}, badge(e.status)), h('td', {}, when(e.started)), h('td', {class: 'num'}, dur(e.seconds)),
        h('td', {}, gens), h('td', {class: 'num'}, e.kind === 'run' ? e.accepted : '–'), h('td', {}, test),
        h('td', {class: 'verdict'}, e.verdict ? verdictBadge(e.verdict) : '–'),
        h('td', {}, e.stop_reason || '–'), h('td', {class: 'muted'}, e.key));
    });
    const cmp = h('button', {id: 'compare', disabled: picked.size !== 2, onclick: () => {
      const [a, b] = [...picked];
      location.href = '/compare?a=' + enc(a) + '&b=' + enc(b);
    }}, 'Compare the two checked');
    const groups = (d.groups || []).map((g) => h('tr', {},
      h('td', {}, g.name), h('td', {class: 'num'}, g.members.length),
      h('td', {}, fmt(g.base.Mean) + ' [' + fmt(g.base.CILow) + ', ' + fmt(g.base.CIHigh) + ']'),
      h('td', {}, fmt(g.final.Mean) + ' [' + fmt(g.final.CILow) + ', ' + fmt(g.final.CIHigh) + ']'),
      h('td', {}, g.members.map((m) => h('a', {href: runURL(m.url_id)}, m.key + ' '))))); 
    setMain(
      h('h1', {}, 'Runs and evals'),
      h('p', {class: 'muted'}, 'Under ' + d.roots.join(', ') + ' · ' + d.entries.length + ' directories · updated ' + when(d.now) + ' UTC'),
      h('table', {id: 'runs'},
        h('tr', {}, ['', 'ID', 'kind', 'status', 'started (UTC)', 'elapsed', 'generations', 'accepted', 'test mean', 'verdict', 'stop', 'directory'].map((t) => h('th', {}, t))),
        rows),
      cmp,
      groups.length ? h('div', {}, h('h2', {}, 'Replicates (same config, different seed sets)'),
        h('table', {id: 'replicates'}, h('tr', {}, ['config', 'runs', 'base test mean [95% CI]', 'final test mean [95% CI]', 'members'].map((t) => h('th', {}, t))), groups)) : null);
    return d.entries.some((e) => e.status === 'running');
  };
  await draw();
  // Live: poll while the page is open (every 2 s), so a running run's
  // progress moves without a reload.
  timer = setInterval(() => { draw().catch(fail); }, 2000);
}

// ---------- /runs/{id} ----------
// pageRun draws a run or an eval; while it is running the page polls
// (every 2 s) and redraws, so its progress and elapsed time move
// without a reload.
async function pageRun(id) {
  const draw = async () => {
    const d = await api('/api/runs/' + enc(id));
    drawRun(id, d);
    return d.entry.status === 'running';
  };
  if (await draw()) {
    timer = setInterval(() => {
      draw().then((running) => { if (!running && timer) { clearInterval(timer); timer = null; } }).catch(fail);
    }, 2000);
  }
}

function drawRun(id, d) {
  const e = d.entry;
  setCrumbs(['runs', '/'], [e.id, null]);
  const links = h('p', {}, h('a', {href: runURL(id) + '/episodes', id: 'episodes-link'}, 'Episodes'), ' · ',
    (d.files || []).map((f) => [h('a', {href: '/files/' + enc(id) + '/' + f}, f), ' · ']));
  const parts = [h('h1', {}, (e.kind === 'eval' ? 'Eval ' : 'Run ') + e.id, ' ', badge(e.status), e.verdict ? [' ', verdictBadge(e.verdict)] : null), links];
  const info = [['directory', e.dir], ['started', when(e.started) + ' UTC'],
    [e.status === 'running' ? 'elapsed (since the start)' : 'duration', dur(e.seconds)]];
  if (e.status === 'running') info.push(['last checkpoint', when(e.updated) + ' UTC']);
  if (e.kind === 'run') {
    info.push(['generations', e.generations + ' of at most ' + e.max_generations], ['accepted', e.accepted],
      ['versions', 'base ' + e.base + ', final ' + e.final]);
    if (e.test_base !== undefined) info.push(['test mean', fmt(e.test_base) + ' → ' + fmt(e.test_final)]);
    info.push(['stopped', d.stop_text || (e.status === 'running' ? 'not yet: running' : '–')]);
  } else {
    info.push(['split', e.split], ['versions', (e.versions || []).join(', ')]);
  }
  info.push(['trajectories stored', Object.entries(d.trajectories || {}).map(([k, v]) => k + ' ' + v + ' phase(s)').join(', ') || 'none']);
  parts.push(h('table', {id: 'summary'}, info.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {class: k === 'stopped' ? 'stop' : ''}, v)))));
  if (d.replicates) {
    const g = d.replicates;
    parts.push(h('p', {}, 'Replicate of ' + g.members.length + ' runs of this config: final test mean ' + fmt(g.final.Mean) +
      ' [' + fmt(g.final.CILow) + ', ' + fmt(g.final.CIHigh) + '] across seed sets.'));
  }
  if (e.kind === 'run') {
    parts.push(h('h2', {}, 'Lineage'), lineage(id, d.lineage, d.candidates));
    parts.push(h('h2', {}, 'Generations and decisions'), generations(id, d));
    // Only comparisons on a split both versions played.
    const cmp = d.comparisons || [];
    parts.push(cmp.length ? h('p', {id: 'compare-links'}, cmp.map((c, i) => [i ? ' · ' : '', h('a', {href: c.url, id: i === 0 ? 'compare-base' : null}, c.text)]))
      : h('p', {class: 'muted', id: 'compare-links'}, e.base === e.final ? 'No comparison: the final version is the base.' : 'No comparison of base and final: they have no split both played.'));
  } else {
    if (d.verdict) parts.push(evalVerdict(id, e, d.verdict));
    parts.push(h('h2', {}, 'Versions'), h('table', {id: 'eval-summary'},
      h('tr', {}, ['variant', 'version', 'n', 'mean [95% CI]', 'median', 'IQM'].map((t) => h('th', {}, t))),
      (d.summaries || []).map((r) => h('tr', {}, h('td', {}, r.Variant || '–'), h('td', {}, r.Version), h('td', {class: 'num'}, r.N),
        h('td', {}, fmt(r.Mean) + ' [' + fmt(r.CILow) + ', ' + fmt(r.CIHigh) + ']'), h('td', {class: 'num'}, fmt(r.Median)), h('td', {class: 'num'}, fmt(r.IQM))))));
  }
  if (d.failures) parts.push(failuresSection(d.failures));
  if (d.parameters) parts.push(parametersSection(id, d.parameters));
  if (d.plots && d.plots.length) {
    parts.push(h('h2', {}, 'Plots'), h('div', {class: 'plots'}, d.plots.map((p) => h('a', {href: '/files/' + enc(id) + '/' + p}, h('img', {src: '/files/' + enc(id) + '/' + p, alt: p, title: p + ' (click for full size)'})))));
  }
  const files = d.all_files || [];
  if (files.length) {
    const table = h('table', {id: 'files'}, h('tr', {}, h('th', {}, 'file'), h('th', {class: 'num'}, 'bytes')),
      files.map((f) => h('tr', {}, h('td', {}, h('a', {href: f.url}, f.name)), h('td', {class: 'num'}, f.bytes.toLocaleString('en')))));
    parts.push(h('h2', {}, 'Files'), h('details', {id: 'files-box'}, h('summary', {}, files.length + ' files, each served read-only (Parquet, plots, reports, trajectories)'), table));
  }
  parts.push(h('h2', {}, 'Settings'), h('pre', {id: 'config'}, d.config || ''));
  setMain(...parts);
}

// failSplit is the split the failure tables show, kept across the
// running page's redraws.
let failSplit = null;

// pct formats a share in [0, 1] as a percentage.
const pct = (x) => (x === null || x === undefined) ? '–' : (100 * x).toFixed(x > 0 && x < 0.1 ? 1 : 0) + '%';
const causeLabel = (c) => c === 'none' ? 'no failure' : c;

// failuresSection draws the failure analysis: the cause × version table
// of one split (counts and shares, each linked to its episodes), the
// top killed_by texts of that split, and the mix before and after each
// accepted mutation.
function failuresSection(fa) {
  const tables = fa.tables || [];
  const box = h('div', {id: 'failures'});
  if (!tables.some((t) => t.split === failSplit) && tables.length) failSplit = (tables.find((t) => t.split === 'train') || tables[0]).split;
  const cell = (row, i) => {
    const n = row.counts[i], sh = row.shares[i];
    const td = h('td', {class: 'num cell'}, n ? h('a', {href: row.urls[i]}, String(n)) : '0', h('span', {class: 'muted'}, ' ' + pct(sh)));
    if (fa.causes[i] !== 'none' && sh) td.style.background = 'rgba(207, 34, 46, ' + (0.08 + 0.5 * sh).toFixed(2) + ')';
    return td;
  };
  const draw = () => {
    const t = tables.find((x) => x.split === failSplit);
    const kids = [h('div', {class: 'controls', id: 'failure-splits'}, 'split:', tables.map((x) => h('button', {class: x.split === failSplit ? 'on' : '', 'data-split': x.split,
      onclick: () => { failSplit = x.split; draw(); }}, x.split)))];
    if (t) {
      kids.push(h('div', {class: 'scroll'}, h('table', {id: 'cause-table'},
        h('tr', {}, h('th', {}, 'version'), h('th', {class: 'num'}, 'episodes'), h('th', {class: 'num'}, 'failed'), fa.causes.map((c) => h('th', {class: 'num'}, causeLabel(c)))),
        t.rows.map((r) => h('tr', {}, h('td', {}, r.version + (r.variant ? ' (' + r.variant + ')' : '')), h('td', {class: 'num'}, r.n),
          h('td', {class: 'num'}, r.failures, h('span', {class: 'muted'}, ' ' + pct(r.n ? r.failures / r.n : null))), r.counts.map((_, i) => cell(r, i)))))));
    }
    if (fa.killed_by) {
      const kb = fa.killed_by.filter((k) => k.split === failSplit);
      kids.push(h('h3', {}, 'Top killed_by on ' + failSplit), kb.length ? h('table', {id: 'killed-by'},
        h('tr', {}, h('th', {}, 'killed by'), h('th', {class: 'num'}, 'episodes'), h('th', {class: 'num'}, 'share of deaths')),
        kb.map((k) => h('tr', {}, h('td', {}, h('a', {href: k.url}, k.text)), h('td', {class: 'num'}, k.count), h('td', {class: 'num'}, pct(k.share)))))
        : h('p', {class: 'muted'}, 'No episode on ' + failSplit + ' has a killed_by text.'));
    }
    box.replaceChildren(...kids);
  };
  draw();
  const out = [h('h2', {}, 'Failures'), h('p', {class: 'muted'}, 'Episodes per failure cause and version (all generations); shares are of the version\'s episodes on the split. Each count opens its episodes.'), box];
  if ((fa.shifts || []).length) out.push(h('h3', {}, 'The mix before and after each accepted mutation'), shiftsTable(fa));
  return out;
}

// shiftsTable draws, per accepted mutation, the incumbent's train mix
// in its generation against the new incumbent's in the next, and the
// val mixes of the incumbent and the accepted candidate; a failure
// share that fell is green, one that rose red.
function shiftsTable(fa) {
  const mixCell = (a, b, i) => {
    if (!a || !b) return h('td', {class: 'muted'}, '–');
    const d = b.shares[i] - a.shares[i], worse = fa.causes[i] === 'none' ? d < 0 : d > 0;
    const link = (r) => r.counts[i] ? h('a', {href: r.urls[i]}, pct(r.shares[i])) : pct(r.shares[i]);
    return h('td', {class: 'num ' + (Math.abs(d) < 1e-9 ? '' : worse ? 'worse' : 'better'), title: a.counts[i] + ' of ' + a.n + ' → ' + b.counts[i] + ' of ' + b.n}, link(a), ' → ', link(b));
  };
  const rows = [];
  for (const s of fa.shifts) {
    const change = [h('b', {}, s.parent + ' → ' + s.accepted), h('div', {class: 'muted small'}, s.mutation)];
    rows.push(h('tr', {}, h('td', {rowspan: 2}, s.generation), h('td', {rowspan: 2, class: 'mutation'}, change),
      h('td', {}, 'train: ' + s.parent + ' in gen ' + s.generation + ' → ' + s.accepted + ' in gen ' + (s.generation + 1)), fa.causes.map((_, i) => mixCell(s.train_before, s.train_after, i))));
    rows.push(h('tr', {}, h('td', {}, 'val, gen ' + s.generation + ': ' + s.parent + ' → ' + s.accepted), fa.causes.map((_, i) => mixCell(s.val_before, s.val_after, i))));
  }
  return h('div', {class: 'scroll'}, h('table', {id: 'shifts'}, h('tr', {}, h('th', {}, 'gen'), h('th', {}, 'accepted mutation'), h('th', {}, 'mix'),
    fa.causes.map((c) => h('th', {class: 'num'}, causeLabel(c)))), rows));
}

// parametersSection draws every version's policy parameters (a value
// changed from the parent highlighted, with the parent's in its
// tooltip) and a slice plot: for each numeric parameter, the versions'
// val means against its value.
function parametersSection(id, pt) {
  const byVer = {};
  for (const r of pt.rows) byVer[r.slug + '@' + r.version] = r;
  const table = h('div', {class: 'scroll'}, h('table', {id: 'params'},
    h('tr', {}, h('th', {}, 'version'), h('th', {}, 'parent'), h('th', {class: 'num'}, 'val mean'), pt.names.map((n) => h('th', {class: 'num'}, n))),
    pt.rows.map((r) => {
      const par = byVer[r.slug + '@' + r.parent];
      return h('tr', {}, h('td', {}, h('a', {href: runURL(id) + '/versions/' + enc(r.version)}, r.version)), h('td', {}, r.parent || '–'), h('td', {class: 'num'}, fmt(r.val_mean)),
        r.error ? h('td', {class: 'error', colspan: pt.names.length}, r.error)
          : r.values.map((v, k) => h('td', {class: 'num' + (r.changed[k] ? ' changed' : ''), title: r.changed[k] && par ? 'was ' + (par.values[k] || '(absent)') + ' in ' + r.parent : null}, v || '–')));
    })));
  const plots = h('div', {class: 'grid', id: 'slice-plot'});
  const constant = [];
  pt.names.forEach((name, k) => {
    if (!pt.numeric[k]) return;
    const pts = pt.rows.filter((r) => r.nums[k] !== null && r.val_mean !== null).map((r) => [r.nums[k], r.val_mean, r.version]);
    if (new Set(pts.map((p) => p[0])).size < 2) constant.push(name);
    else plots.append(slicePlot(name, pts));
  });
  return [h('h2', {}, 'Parameters'), h('p', {class: 'muted'}, 'Every version\'s policy parameters; a highlighted value changed from the parent (its tooltip gives the parent\'s).'), table,
    h('h3', {}, 'Parameter against val mean'),
    h('p', {class: 'muted'}, 'One plot per numeric parameter that varies (Optuna\'s slice plot): each point a version with a val mean (hover for its name), x its value, y its val mean.' +
      (constant.length ? ' The same in every version: ' + constant.join(', ') + '.' : '')),
    plots.childElementCount ? plots : h('p', {class: 'muted', id: 'slice-plot'}, 'No numeric parameter varies across the versions with a val mean.')];
}

// slicePlot draws one parameter's points [value, val mean, version] as
// an inline SVG scatter with its range on each axis.
function slicePlot(name, pts) {
  const W = 220, H = 160, L = 44, R = 8, T = 18, B = 28;
  const svg = s('svg', {width: W, height: H, class: 'slice', 'data-param': name});
  svg.append(s('text', {x: L, y: 12, 'font-weight': 600}, name));
  if (!pts.length) { svg.append(s('text', {x: L, y: H / 2}, 'no version with a val mean')); return svg; }
  const ext = (i) => { let lo = Math.min(...pts.map((p) => p[i])), hi = Math.max(...pts.map((p) => p[i])); if (lo === hi) { lo -= 1e-9 + Math.abs(lo) * 0.05; hi += 1e-9 + Math.abs(hi) * 0.05; } return [lo, hi]; };
  const [x0, x1] = ext(0), [y0, y1] = ext(1);
  const X = (v) => L + (v - x0) / (x1 - x0) * (W - L - R), Y = (v) => H - B - (v - y0) / (y1 - y0) * (H - T - B);
  svg.append(s('rect', {x: L, y: T, width: W - L - R, height: H - T - B, fill: '#fff', stroke: '#d0d7de'}));
  const num = (v) => Number(v.toPrecision(3)).toString();
  svg.append(s('text', {x: L + 2, y: H - B + 12, 'text-anchor': 'start'}, num(x0)), s('text', {x: W - R, y: H - B + 12, 'text-anchor': 'end'}, num(x1)),
    s('text', {x: L - 3, y: H - B - 2, 'text-anchor': 'end'}, num(y0)), s('text', {x: L - 3, y: T + 9, 'text-anchor': 'end'}, num(y1)),
    s('text', {x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle', fill: '#6e7781'}, 'value'),
    s('text', {x: 10, y: (T + H - B) / 2, transform: 'rotate(-90 10 ' + (T + H - B) / 2 + ')', 'text-anchor': 'middle', fill: '#6e7781'}, 'val mean'));
  for (const [x, y, v] of pts) svg.append(s('circle', {cx: X(x).toFixed(1), cy: Y(y).toFixed(1), r: 4, fill: '#0969da', 'fill-opacity': 0.7}, s('title', {}, v + ': ' + name + ' ' + x + ', val mean ' + fmt(y))));
  return svg;
}

// evalVerdict draws an eval's verdict as the eval reached it: the
// outcome first, then the hypothesis, margin, family and correction, the
// baseline, each check's p, adjusted p and α, and the failure-share
// checks.
function evalVerdict(id, e, v) {
  const out = [h('h2', {}, 'Verdict')];
  if (!v.verdict) {
    out.push(h('p', {class: 'muted', id: 'verdict'}, 'No verdict: ' + v.note + '.'));
    return out;
  }
  const c0 = v.comparisons[0].check;
  out.push(h('p', {id: 'verdict', class: 'verdict v-' + v.verdict.replace(/ /g, '-')}, verdictBadge(v.verdict), ' ', v.headline));
  const g = v.gate;
  const margin = g.margin_a12 > 0 ? g.margin_a12 + ' on the A12 scale (A12 below ' + (0.5 - g.margin_a12) + ')'
    : g.margin > 0 ? g.margin + ' score points on the ' + g.margin_on + ' scale (' + (g.margin_on === 'mean' ? 'difference of means' : 'Hodges-Lehmann shift') + ')' : 'none (any loss counts)';
  const base = v.baseline_self ? [v.baseline, ' (this eval)'] : v.baseline_url_id ? [h('a', {href: runURL(v.baseline_url_id), id: 'baseline-link'}, v.baseline)] : [v.baseline, ' (not under the served directories)'];
  const rows = [['baseline', base], ['hypothesis', g.hypothesis + ' — H1 (about the candidate against the baseline): ' + v.comparisons[0].h1],
    ['margin', margin], ['test', g.test + (c0.test ? ' (ran: ' + c0.test + ')' : '')], ['family', c0.family], ['correction', g.correction], ['α (family-wise)', g.alpha],
    ['fails CI', v.fail_on_regression ? 'yes: a failed check makes evolve eval exit 3' : 'no (--fail-on-regression not given)']];
  if (v.max_failure_increase !== null && v.max_failure_increase !== undefined) rows.push(['failure share', 'checked: fails on evidence of an increase beyond ' + v.max_failure_increase]);
  out.push(h('table', {id: 'gate-settings'}, rows.map(([k, x]) => h('tr', {}, h('th', {}, k), h('td', {}, x)))));
  out.push(h('table', {id: 'checks'},
    h('tr', {}, ['version', 'variant', 'verdict', 'mean', 'baseline mean', 'diff', 'HL shift [95% CI]', 'test', 'p', 'p adj.', 'α', 'p better (adj.)', 'A12', 'power', ''].map((t) => h('th', {}, t))),
    v.comparisons.map((c) => {
      const k = c.check;
      return h('tr', {class: c.verdict === 'regression' || c.verdict === 'non-inferiority not shown' ? 'regression' : c.improvement ? 'accepted' : ''},
        h('td', {}, k.version), h('td', {}, k.variant || '–'), h('td', {}, c.verdict), h('td', {class: 'num'}, fmt(k.mean)), h('td', {class: 'num'}, fmt(k.baseline_mean)),
        h('td', {class: 'num'}, fmt(k.mean_diff)), h('td', {class: 'num'}, fmt(k.hl_shift) + ' [' + fmt(k.hl_low) + ', ' + fmt(k.hl_high) + ']'), h('td', {}, k.test + (k.paired ? ' (paired)' : '')),
        h('td', {class: 'num'}, fmtp(k.p)), h('td', {class: 'num'}, fmtp(k.p_adj)), h('td', {class: 'num'}, k.alpha), h('td', {class: 'num'}, fmtp(c.p_better_adj)),
        h('td', {class: 'num'}, fmt(k.a12, 3)), h('td', {class: 'num', title: 'chance to detect a loss of ' + fmt(k.power_loss) + ' at these sample sizes'}, k.power === null ? '–' : Math.round(100 * k.power) + '%'),
        h('td', {}, c.compare ? h('a', {href: c.compare, class: 'compare-link'}, 'compare') : ''));
    })));
  out.push(h('p', {class: 'muted'}, 'p: the one-sided test of H1; p adj.: after the correction across the family; a check fails when p adj. < α. ' +
    'p better: the same test with the roles swapped and no margin (an improvement when p better (adj.) < α and the check passed). ' +
    'Power: the chance to catch a true loss of the size in its tooltip at these sample sizes.'));
  if (v.failure_checks.length) {
    out.push(h('h3', {}, 'Failure shares'), h('table', {id: 'failure-checks'},
      h('tr', {}, ['version', 'variant', 'result', 'failed share', 'baseline share', 'p', 'p adj.', 'α'].map((t) => h('th', {}, t))),
      v.failure_checks.map((k) => h('tr', {class: k.failed ? 'regression' : ''}, h('td', {}, k.version), h('td', {}, k.variant || '–'),
        h('td', {}, k.failed ? 'increase beyond ' + k.margin + ' shown' : 'no increase beyond ' + k.margin + ' shown'),
        h('td', {class: 'num'}, fmt(k.mean, 3)), h('td', {class: 'num'}, fmt(k.baseline_mean, 3)), h('td', {class: 'num'}, fmtp(k.p)), h('td', {class: 'num'}, fmtp(k.p_adj)), h('td', {class: 'num'}, k.alpha)))));
  }
  return out;
}

// generations draws every generation with its candidates and why each
// was accepted or rejected: its p adjusted within the generation against
// the generation's α under alpha spending. Generations are numbered from
// 1, as docs/sequential.md and the spending formula count them.
function generations(id, d) {
  const byGen = {};
  for (const c of d.candidates || []) (byGen[c.Generation] ||= []).push(c);
  const alphas = d.generation_alpha || [];
  const rows = [];
  for (const g of d.generations || []) {
    const n = g.Generation + 1, a = alphas[g.Generation];
    rows.push(h('tr', {class: 'gen'}, h('td', {}, n), h('td', {}, h('a', {href: runURL(id) + '/versions/' + enc(g.Incumbent)}, g.Incumbent), ' (incumbent)'),
      h('td', {colspan: 3}, 'train failures ' + g.Failures + ' of ' + g.NTrain), h('td', {class: 'num alpha'}, a === undefined ? '–' : fmtp(a)), h('td', {class: 'num'}, fmt(g.ValMean)),
      h('td', {colspan: 3}, g.Accepted ? 'accepted ' + g.Accepted : 'none accepted')));
    const cands = byGen[g.Generation] || [];
    const someAccepted = cands.some((c) => c.Accepted);
    for (const c of cands) {
      let why;
      if (c.Accepted) why = 'accepted: p adj. ' + fmtp(c.PAdj) + ' < α_' + n + ' ' + fmtp(a);
      else if (c.Stop === 'futility') why = 'rejected: stopped for futility at look ' + c.Look;
      else if (a !== undefined && c.PAdj >= a) why = 'rejected: p adj. ' + fmtp(c.PAdj) + ' ≥ α_' + n + ' ' + fmtp(a);
      else if (someAccepted) why = 'rejected: passed, but another candidate was accepted';
      else why = 'rejected';
      rows.push(h('tr', {class: c.Accepted ? 'accepted cand' : 'cand'}, h('td', {}, ''), h('td', {}, h('a', {href: runURL(id) + '/versions/' + enc(c.Version)}, c.Version)),
        h('td', {}, c.Operator + ': ' + c.Mutation), h('td', {class: 'num'}, fmtp(c.P)), h('td', {class: 'num'}, fmtp(c.PAdj)), h('td', {class: 'num alpha'}, a === undefined ? '–' : fmtp(a)),
        h('td', {class: 'num'}, fmt(c.Mean)), h('td', {class: 'num'}, fmt(c.A12, 3)), h('td', {}, c.Look ? 'look ' + c.Look + (c.Stop ? ', ' + c.Stop : '') : '–'), h('td', {class: 'why'}, why)));
    }
  }
  const spend = d.alpha_spending === 'none' ? 'every generation is tested at α = ' + d.alpha + ' (alpha_spending: none)'
    : 'generation g (counted from 1) is tested at α_g = α·6/(π²g²) with α = ' + d.alpha + ' (alpha_spending: basel; docs/sequential.md)';
  return h('div', {}, h('p', {class: 'muted', id: 'spending'}, 'Decisions: a candidate is accepted when its p, adjusted across its generation\'s candidates by acceptance.correction (p adj.), is below its generation\'s α; ' + spend + '. generations.parquet numbers generations from 0.'),
    h('table', {id: 'generations'}, h('tr', {}, ['gen', 'version', 'mutation', 'p', 'p adj.', 'α_g', 'val mean', 'A12', 'look', 'decision'].map((t) => h('th', {}, t))), rows));
}

// lineage draws the version graph: one column per generation, edges
// coloured by kind (supersedes, branched_from, inherits_from, rolled_back).
function lineage(id, l, cands) {
  const vs = (l && l.versions) || [];
  if (!vs.length) return h('p', {class: 'muted'}, 'No prompt store.');
  const gen = {};
  for (const c of cands || []) gen[c.Version] = c.Generation + 1;
  const cols = {};
  const pos = {};
  for (const v of vs) {
    const key = v.slug + '@' + v.version;
    const g = gen[v.version] ?? 0;
    cols[g] = (cols[g] || 0) + 1;
    pos[key] = [30 + g * 150, 20 + (cols[g] - 1) * 34];
  }
  const W = 60 + 150 * Object.keys(cols).length, H = 40 + 34 * Math.max(...Object.values(cols));
  const colour = {supersedes: '#1a7f37', branched_from: '#8250df', inherits_from: '#0969da', rolled_back: '#cf222e'};
  const svg = s('svg', {width: W, height: H, id: 'lineage'});
  const parent = [];
  for (const v of vs) if (v.parent) parent.push({kind: 'derived_from', from: v.slug + '@' + v.version, to: v.slug + '@' + v.parent});
  for (const e of [...parent, ...(l.edges || [])]) {
    const a = pos[refKey(e.from)], b = pos[refKey(e.to)];
    if (!a || !b) continue;
    svg.append(s('line', {x1: a[0], y1: a[1], x2: b[0] + 60, y2: b[1], stroke: colour[e.kind] || '#afb8c1', 'stroke-width': e.kind === 'derived_from' ? 1 : 2.5},
      s('title', {}, e.kind + ': ' + refVer(e.from) + ' → ' + refVer(e.to))));
  }
  for (const v of vs) {
    const [x, y] = pos[v.slug + '@' + v.version];
    const a = s('a', {href: runURL(id) + '/versions/' + enc(v.version)},
      s('rect', {x: x, y: y - 11, width: 60, height: 20, rx: 4, fill: '#fff', stroke: '#57606a'}),
      s('text', {x: x + 6, y: y + 3}, v.version), s('title', {}, (v.operator || 'base') + ': ' + (v.description || '')));
    svg.append(a);
  }
  const legend = h('p', {class: 'muted'}, 'Edges: ', Object.entries(colour).map(([k, c]) => { const sp = h('span', {}, '■ ' + k + '  '); sp.style.color = c; return sp; }), '(grey: derived from parent). Columns are generations.');
  return h('div', {}, svg, legend);
}

// ---------- /runs/{id}/episodes ----------
async function pageEpisodes(id) {
  const q = new URLSearchParams(location.search);
  const d = await api('/api/runs/' + enc(id) + '/episodes?' + q.toString());
  setCrumbs(['runs', '/'], [id, runURL(id)], ['episodes']);
  const go = (changes) => {
    for (const [k, v] of Object.entries(changes)) { if (v === '' || v === null) q.delete(k); else q.set(k, v); }
    history.pushState(null, '', location.pathname + '?' + q.toString());
    route();
  };
  const sel = (name, values) => h('label', {}, name, h('select', {name}, h('option', {value: ''}, 'any'),
    values.map((v) => h('option', {value: v, selected: q.get(name) === v}, v || '(none)'))));
  const inp = (name, label) => h('label', {}, label, h('input', {name, value: q.get(name) || '', size: 8}));
  const form = h('form', {class: 'filters', id: 'filters', onsubmit: (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    const ch = {page: ''};
    for (const k of ['split', 'version', 'cause', 'variant', 'seed', 'min', 'max']) ch[k] = f.get(k) || '';
    go(ch);
  }}, sel('split', d.splits), sel('version', d.versions), sel('cause', d.causes), d.variants.length > 1 ? sel('variant', d.variants) : null,
  inp('min', 'score ≥'), inp('max', 'score ≤'), inp('seed', 'seed'), h('button', {type: 'submit'}, 'Filter'));
  const cols = ['split', 'version', 'seed', 'generation', 'score', 'cause', 'end_reason', ...d.metric_columns.map((m) => m.name)];
  const head = h('tr', {}, cols.map((c) => h('th', {class: 'sortable' + (q.get('sort') === c ? ' sorted' : ''), 'data-col': c, onclick: () => {
    go({sort: c, desc: q.get('sort') === c && q.get('desc') !== '1' ? '1' : '', page: ''});
  }}, c + (q.get('sort') === c ? (q.get('desc') === '1' ? ' ▼' : ' ▲') : ''))), h('th', {}, 'trajectory'));
  const rows = d.episodes.map((e) => {
    let href = runURL(id) + '/episodes/' + enc(e.split) + '/' + enc(e.version) + '/' + e.seed;
    const extra = new URLSearchParams();
    if (e.variant) extra.set('variant', e.variant);
    if (e.repeat) extra.set('repeat', e.repeat);
    if ([...extra].length) href += '?' + extra.toString();
    const v = {split: e.split, version: e.version, seed: h('a', {href, class: 'episode-link'}, e.seed), generation: e.generation,
      score: fmt(e.score), cause: e.cause, end_reason: e.end_reason};
    return h('tr', {}, cols.map((c) => h('td', {class: ['score', 'generation'].includes(c) || typeof e.metrics[c] === 'number' ? 'num' : ''},
      c in v ? v[c] : (e.metrics[c] === null ? '–' : e.metrics[c]))), h('td', {}, e.has_trajectory ? '▶' : ''));
  });
  const page = d.page, pages = Math.max(1, Math.ceil(d.total / d.size));
  const pager = h('div', {class: 'controls', id: 'pager'},
    h('button', {disabled: page === 0, onclick: () => go({page: page - 1})}, '← previous'),
    h('span', {}, 'page ' + (page + 1) + ' of ' + pages + ' · ' + d.total + ' episodes'),
    h('button', {disabled: page + 1 >= pages, onclick: () => go({page: page + 1}), id: 'next-page'}, 'next →'));
  // Filters the form has no field for (set by the run page's links).
  const extra = [];
  if (q.get('generation')) extra.push(['generation ' + (Number(q.get('generation')) + 1) + ' (' + q.get('generation') + ' in episodes.parquet)', {generation: ''}]);
  if (q.get('metric')) extra.push([q.get('metric') + ' = ' + JSON.stringify(q.get('metric_value') || ''), {metric: '', metric_value: ''}]);
  const chips = extra.length ? h('p', {id: 'extra-filters'}, 'Also filtered by: ', extra.map(([t, ch], i) => [i ? ', ' : '', t, ' ',
    h('a', {href: '#', onclick: (ev) => { ev.preventDefault(); go({...ch, page: ''}); }}, '(clear)')])) : null;
  setMain(h('h1', {}, 'Episodes of ' + id), form, chips, pager, h('div', {class: 'scroll'}, h('table', {id: 'episodes'}, head, rows)));
}

// ---------- /runs/{id}/episodes/{split}/{version}/{seed} ----------
async function pageEpisode(id, split, version, seed) {
  const d = await api('/api/runs/' + enc(id) + '/episodes/' + enc(split) + '/' + enc(version) + '/' + enc(seed) + location.search);
  setCrumbs(['runs', '/'], [id, runURL(id)], ['episodes', runURL(id) + '/episodes'], [split + ' ' + version + ' ' + seed]);
  const e = d.episode;
  const facts = [['split', e.split], ['version', e.version], ['seed', e.seed], ['score', fmt(e.score)], ['cause', e.cause], ['end', e.end_reason],
    ...Object.entries(e.metrics).map(([k, v]) => [k, v === null ? '–' : v])];
  const parts = [h('h1', {}, 'Episode ' + e.split + ' / ' + e.version + ' / seed ' + e.seed),
    h('table', {id: 'episode-facts'}, h('tr', {}, facts.map(([k]) => h('th', {}, k))), h('tr', {}, facts.map(([, v]) => h('td', {}, v))))];
  if (!d.trajectory) {
    parts.push(h('p', {class: d.trajectory_error ? 'error' : 'muted', id: d.trajectory_error ? 'trajectory-error' : 'no-trajectory'}, d.note || 'No trajectory.'));
    setMain(...parts);
    return;
  }
  const t = d.trajectory;
  parts.push(h('p', {class: 'muted'}, 'Trajectory: ' + t.kind + ' (' + t.format + ', ' + t.bytes + ' bytes stored)'));
  setMain(...parts);
  if (t.kind === 'dungeon') return replayDungeon(t.dungeon);
  if (t.kind === 'asciicast') return replayCast(t.cast);
  if (t.kind === 'transcript') return replayTranscript(t.transcript);
  main.append(h('pre', {id: 'raw'}, JSON.stringify(t.raw, null, 2)));
}

// player adds the replay controls (slider, buttons, keys) for n frames
// and calls show(i) for the frame to draw.
function player(n, show, delay = 120) {
  let i = 0, playing = false;
  const slider = h('input', {type: 'range', min: 0, max: n - 1, value: 0, id: 'step-slider', oninput: (ev) => set(Number(ev.target.value))});
  const label = h('span', {id: 'step-label'});
  const playBtn = h('button', {id: 'play', onclick: () => toggle()}, '▶ play');
  const set = (k) => { i = Math.max(0, Math.min(n - 1, k)); slider.value = i; label.textContent = 'step ' + (i + 1) + ' of ' + n; show(i); };
  const toggle = () => {
    playing = !playing;
    playBtn.textContent = playing ? '❚❚ pause' : '▶ play';
    if (timer) { clearInterval(timer); timer = null; }
    if (playing) timer = setInterval(() => { if (i >= n - 1) toggle(); else set(i + 1); }, delay);
  };
  document.onkeydown = (ev) => {
    if (ev.target.tagName === 'INPUT' && ev.target.type !== 'range') return;
    if (ev.key === 'ArrowRight') set(i + 1); else if (ev.key === 'ArrowLeft') set(i - 1);
    else if (ev.key === ' ') { ev.preventDefault(); toggle(); } else if (ev.key === 'Home') set(0); else if (ev.key === 'End') set(n - 1);
    else return;
    ev.preventDefault();
  };
  const bar = h('div', {class: 'controls'}, h('button', {id: 'step-back', onclick: () => set(i - 1)}, '◀'), playBtn,
    h('button', {id: 'step-forward', onclick: () => set(i + 1)}, '▶|'), slider, label,
    h('span', {class: 'muted'}, 'keys: ← → step, space play/pause, Home/End'));
  main.append(bar);
  return set;
}

function replayDungeon(rp) {
  if (rp.diverged) main.append(h('p', {class: 'error'}, 'Replay diverged: ' + rp.diverged));
  const map = h('pre', {class: 'map', id: 'map'});
  const state = h('table', {id: 'state'});
  const act = h('p', {id: 'action'});
  const set = player(rp.steps.length, (i) => {
    const st = rp.steps[i];
    map.textContent = st.map;
    act.textContent = st.action ? 'turn ' + st.turn + ': action ' + st.action + ', reward ' + st.reward + ', score ' + st.score : 'end: ' + rp.record.end + ' after ' + st.turn + ' turns, score ' + st.score;
    state.replaceChildren(...Object.entries(st.state).map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(2) : String(v)))));
  });
  main.append(act, h('div', {class: 'grid'}, map, state));
  set(0);
}

// replayCast plays an asciicast v2 recording on a small terminal
// emulator (cursor movement, erase, SGR ignored): one frame per event.
function replayCast(text) {
  const lines = text.split('\n').filter((l) => l.trim());
  const hdr = JSON.parse(lines[0]);
  const W = hdr.width || 80, Hh = hdr.height || 24;
  const events = lines.slice(1).map((l) => JSON.parse(l)).filter((ev) => ev[1] === 'o');
  const screen = h('pre', {class: 'term', id: 'terminal'});
  const frames = []; // screen text after each event, computed once
  const term = newTerm(W, Hh);
  for (const ev of events) { term.write(ev[2]); frames.push(term.text()); }
  if (!frames.length) frames.push(term.text());
  const tlabel = h('p', {id: 'cast-time'});
  const set = player(frames.length, (i) => { screen.textContent = frames[i]; tlabel.textContent = events[i] ? 't = ' + Number(events[i][0]).toFixed(2) + ' s' : ''; });
  main.append(tlabel, screen);
  set(0);
}

function newTerm(W, H) {
  let grid = Array.from({length: H}, () => Array(W).fill(' '));
  let x = 0, y = 0, saved = [0, 0];
  const clamp = () => { x = Math.max(0, Math.min(W - 1, x)); y = Math.max(0, Math.min(H - 1, y)); };
  const scroll = () => { grid.shift(); grid.push(Array(W).fill(' ')); };
  let pending = '';
  function csi(params, fin) {
    const ps = params.replace(/^\?/, '').split(';').map((v) => (v === '' ? NaN : Number(v)));
    const p1 = Number.isNaN(ps[0]) ? 1 : ps[0];
    switch (fin) {
      case 'H': case 'f': y = (Number.isNaN(ps[0]) ? 1 : ps[0]) - 1; x = (ps.length > 1 && !Number.isNaN(ps[1]) ? ps[1] : 1) - 1; break;
      case 'A': y -= p1; break; case 'B': y += p1; break; case 'C': x += p1; break; case 'D': x -= p1; break;
      case 'G': x = p1 - 1; break; case 'd': y = p1 - 1; break;
      case 'J': {
        const m = Number.isNaN(ps[0]) ? 0 : ps[0];
        if (m === 2 || m === 3) grid = Array.from({length: H}, () => Array(W).fill(' '));
        else if (m === 0) { for (let c = x; c < W; c++) grid[y][c] = ' '; for (let r = y + 1; r < H; r++) grid[r].fill(' '); }
        else if (m === 1) { for (let c = 0; c <= x; c++) grid[y][c] = ' '; for (let r = 0; r < y; r++) grid[r].fill(' '); }
        break;
      }
      case 'K': {
        const m = Number.isNaN(ps[0]) ? 0 : ps[0];
        if (m === 0) for (let c = x; c < W; c++) grid[y][c] = ' ';
        else if (m === 1) for (let c = 0; c <= x; c++) grid[y][c] = ' ';
        else grid[y].fill(' ');
        break;
      }
      default: break; // m (colours), h/l (modes), r (scroll region): not drawn
    }
    clamp();
  }
  function write(data) {
    data = pending + data;
    pending = '';
    for (let i = 0; i < data.length; i++) {
      const c = data[i];
      if (c === '\x1b') {
        if (i + 1 >= data.length) { pending = data.slice(i); return; }
        const n = data[i + 1];
        if (n === '[') {
          let j = i + 2;
          while (j < data.length && !/[@-~]/.test(data[j])) j++;
          if (j >= data.length) { pending = data.slice(i); return; }
          csi(data.slice(i + 2, j), data[j]);
          i = j;
        } else if (n === '(' || n === ')') { i += 2; }
        else if (n === '7') { saved = [x, y]; i++; }
        else if (n === '8') { [x, y] = saved; i++; }
        else if (n === ']') { const j = data.indexOf('\x07', i); i = j < 0 ? data.length : j; }
        else i++;
      } else if (c === '\r') x = 0;
      else if (c === '\n') { y++; if (y >= H) { scroll(); y = H - 1; } }
      else if (c === '\b') x = Math.max(0, x - 1);
      else if (c === '\t') x = Math.min(W - 1, (Math.floor(x / 8) + 1) * 8);
      else if (c >= ' ') {
        if (x >= W) { x = 0; y++; if (y >= H) { scroll(); y = H - 1; } }
        grid[y][x] = c; x++;
      }
    }
  }
  return {write, text: () => grid.map((r) => r.join('').replace(/\s+$/, '')).join('\n').replace(/\n+$/, '')};
}

function replayTranscript(tr) {
  const turns = tr.turns || [];
  const sys = h('details', {}, h('summary', {}, 'System prompt (sent first in every request)'), h('pre', {}, tr.system || ''));
  const box = h('div', {id: 'transcript'});
  const set = player(Math.max(1, turns.length), (i) => {
    const t = turns[i];
    if (!t) { box.replaceChildren(h('p', {}, 'No turns.')); return; }
    box.replaceChildren(h('div', {class: 'turn current'},
      h('p', {}, 'Turn ' + t.turn + ': action ', h('b', {}, t.action), t.fallback ? ' (fallback: no reply named an action)' : ''),
      t.tries.map((tr, k) => h('div', {},
        h('p', {class: 'muted'}, 'Request ' + (k + 1)),
        tr.messages.map((m) => h('div', {class: 'msg ' + m.Role}, m.Role + ': ' + m.Content)),
        h('div', {class: 'msg assistant'}, 'reply: ' + tr.reply),
        tr.rejected ? h('div', {class: 'msg rejected'}, 'rejected: ' + tr.rejected + ' (a correction follows)') : null))));
  }, 600);
  main.append(sys, box);
  set(0);
}

// ---------- /runs/{id}/versions/{version} ----------
async function pageVersion(id, version) {
  const d = await api('/api/runs/' + enc(id) + '/versions/' + enc(version) + location.search);
  setCrumbs(['runs', '/'], [id, runURL(id)], ['version ' + version]);
  const v = d.info;
  const parts = [h('h1', {}, v.slug + ' ' + v.version),
    h('p', {}, 'Branch ' + v.branch + (d.parent ? ', derived from ' : ''), d.parent ? h('a', {href: runURL(id) + '/versions/' + enc(d.parent)}, d.parent) : '',
      v.operator ? ' by ' + v.operator + ': ' + (v.description || '') : '')];
  if (d.edges.length) parts.push(h('p', {}, 'Edges: ' + d.edges.map((e) => e.kind + ' ' + refVer(e.from) + ' → ' + refVer(e.to)).join('; ')));
  parts.push(h('h2', {}, 'Policy parameters'), h('pre', {id: 'params'}, d.params));
  if (d.changes && d.changes.length) {
    parts.push(h('h2', {}, 'Changes from ' + d.parent), h('table', {id: 'changes'}, h('tr', {}, ['field', 'kind', 'old', 'new'].map((t) => h('th', {}, t))),
      d.changes.filter((c) => !c.text).map((c) => h('tr', {}, h('td', {}, c.field), h('td', {}, c.kind), h('td', {}, c.old || ''), h('td', {}, c.new || '')))));
  }
  if (d.text_diff) {
    parts.push(h('h2', {}, 'Rendered prompt, diff against ' + d.parent), h('pre', {id: 'diff'}, d.text_diff.split('\n').map((l) =>
      h('span', {class: l.startsWith('+ ') ? 'diff-add' : l.startsWith('- ') ? 'diff-del' : ''}, l + '\n'))));
  }
  parts.push(h('h2', {}, 'Sections'), (d.sections || []).length ? d.sections.map((sc) => h('details', {}, h('summary', {}, sc.Name), h('pre', {}, sc.Text))) : h('p', {class: 'muted'}, 'This version has no sections.'));
  parts.push(h('h2', {}, 'Rendered prompt'), h('pre', {id: 'rendered'}, d.rendered));
  setMain(...parts);
}

// ---------- /compare ----------
// pageCompare shows B (the candidate) against A (the baseline) under the
// gate of the eval they belong to (its own settings, or its stored
// verdict when B's eval compared B with A), each direction in words.
async function pageCompare() {
  const d = await api('/api/compare' + location.search);
  setCrumbs(['runs', '/'], ['compare']);
  const side = (x) => h('td', {}, h('a', {href: runURL(x.id)}, x.key), ' ', x.version, ' (' + x.split + (x.variant ? ', ' + x.variant : '') + ')');
  const row = (label, f) => h('tr', {}, h('th', {}, label), h('td', {class: 'num'}, f(d.a)), h('td', {class: 'num'}, f(d.b)));
  const sum = h('table', {id: 'compare-summary'}, h('tr', {}, h('th', {}, ''), h('th', {}, 'A (baseline)'), h('th', {}, 'B (candidate)')),
    h('tr', {}, h('th', {}, 'what'), side(d.a), side(d.b)),
    row('n', (x) => x.summary.n), row('mean [95% CI]', (x) => fmt(x.summary.Mean) + ' [' + fmt(x.summary.CILow) + ', ' + fmt(x.summary.CIHigh) + ']'),
    row('median', (x) => fmt(x.summary.Median)), row('IQM', (x) => fmt(x.summary.IQM)));
  const g = d.gate;
  const settings = 'Tests under ' + g.source + ': ' + g.hypothesis + ' hypothesis, ' + g.test + ' test, α = ' + g.alpha +
    (g.margin_a12 > 0 ? ', margin ' + g.margin_a12 + ' on the A12 scale' : g.margin > 0 ? ', margin ' + g.margin + ' on the ' + g.margin_on + ' scale' : ', no margin') +
    ', correction ' + g.correction + '.';
  // Red only when B is shown worse; green only when B is shown better.
  const worseBad = d.worse && d.worse.failed;
  const gateParts = [h('p', {class: 'muted', id: 'gate-settings'}, settings),
    d.worse_text ? h('p', {class: worseBad ? 'regression' : '', id: 'gate-worse'}, d.worse_text) : null,
    h('p', {class: d.better ? 'accepted' : '', id: 'gate-better'}, d.better_text),
    d.power_text ? h('p', {class: 'muted', id: 'power'}, d.power_text) : null,
    d.stored ? h('p', {class: 'muted', id: 'stored'}, 'As evolve eval reported it: the verdict B\'s eval stored against this baseline.') : null];
  // Score distributions: two bar series on shared bins.
  const max = Math.max(1, ...d.a.hist, ...d.b.hist);
  const svg = s('svg', {width: 520, height: 170, id: 'hist'});
  d.a.hist.forEach((n, i) => {
    svg.append(s('rect', {x: 20 + i * 24, y: 140 - 120 * n / max, width: 11, height: 120 * n / max, fill: '#8c959f'}, s('title', {}, 'A: ' + n)));
    const m = d.b.hist[i];
    svg.append(s('rect', {x: 31 + i * 24, y: 140 - 120 * m / max, width: 11, height: 120 * m / max, fill: '#0969da'}, s('title', {}, 'B: ' + m)));
  });
  svg.append(s('text', {x: 20, y: 160}, fmt(d.bins[0])), s('text', {x: 470, y: 160}, fmt(d.bins[d.bins.length - 1])),
    s('text', {x: 200, y: 12}, 'scores: A grey, B blue'));
  const top = h('table', {id: 'top-pairs'}, h('tr', {}, ['seed', 'A', 'B', 'B − A', 'episodes'].map((t) => h('th', {}, t))),
    d.top.map((p) => h('tr', {}, h('td', {}, p.seed), h('td', {class: 'num'}, fmt(p.a)), h('td', {class: 'num'}, fmt(p.b)), h('td', {class: 'num'}, fmt(p.diff)),
      h('td', {}, h('a', {href: p.link_a, class: 'pair-a'}, 'A'), ' · ', h('a', {href: p.link_b, class: 'pair-b'}, 'B')))));
  setMain(h('h1', {}, 'Compare'), d.note ? h('p', {class: 'note', id: 'note'}, d.note) : null, sum,
    h('h2', {}, 'Is B worse or better than A? (one-sided tests)'), gateParts,
    h('h2', {}, 'Score distributions'), svg,
    h('h2', {}, 'Per-seed paired differences'), h('p', {id: 'paired'}, d.paired + ' seeds played by both; B − A mean ' + fmt(d.diffs.Mean) +
      ' [' + fmt(d.diffs.CILow) + ', ' + fmt(d.diffs.CIHigh) + '], median ' + fmt(d.diffs.Median)),
    h('h2', {}, 'Seeds where they differ most'), top);
}

window.addEventListener('popstate', route);
route();
