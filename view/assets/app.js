// evolve view: the pages are drawn on the server (html/template); this
// script only adds interaction: live updates of a running run, sorting,
// the runs table's compare button, the failure tables' split buttons
// and the replay player. It talks to no server but this one.
'use strict';

const main = document.getElementById('main');

// ---------- live: a page with data-live refetches itself every 2 s ----------
// The new page replaces the old one's content; what the reader chose
// (checked runs, the failure split, open details) is kept.
function keepState() {
  return {
    picked: [...document.querySelectorAll('input.pick:checked')].map((b) => b.dataset.id),
    split: (document.querySelector('#failure-splits button.on') || {}).dataset?.split,
    open: [...document.querySelectorAll('details[id][open]')].map((d) => d.id),
  };
}
function restoreState(st) {
  for (const id of st.picked) {
    const b = document.querySelector('input.pick[data-id="' + CSS.escape(id) + '"]');
    if (b) b.checked = true;
  }
  if (st.split) showSplit(st.split);
  for (const id of st.open) {
    const d = document.getElementById(id);
    if (d) d.open = true;
  }
  updateCompare();
}
async function poll() {
  if (!main.dataset.live) return;
  try {
    const r = await fetch(location.href, {headers: {Accept: 'text/html'}, cache: 'no-store'});
    if (!r.ok) return;
    const doc = new DOMParser().parseFromString(await r.text(), 'text/html');
    const fresh = doc.getElementById('main');
    if (!fresh) return;
    if (fresh.innerHTML !== main.innerHTML) {
      const st = keepState();
      main.replaceChildren(...fresh.childNodes);
      restoreState(st);
    }
    if (!fresh.dataset.live) delete main.dataset.live;
  } finally {
    if (main.dataset.live) setTimeout(poll, 2000);
  }
}
if (main.dataset.live) setTimeout(poll, 2000);

// ---------- the runs table: compare 2 to 8 checked ----------
function updateCompare() {
  const btn = document.getElementById('compare');
  if (!btn) return;
  const n = document.querySelectorAll('input.pick:checked').length;
  btn.disabled = n < 2 || n > 8;
}
document.addEventListener('change', (ev) => { if (ev.target.matches('input.pick')) updateCompare(); });
document.addEventListener('click', (ev) => {
  if (ev.target.id === 'compare') {
    const ids = [...document.querySelectorAll('input.pick:checked')].map((b) => b.dataset.id);
    const q = new URLSearchParams({a: ids[0], b: ids[1]});
    for (const id of ids.slice(2)) q.append('c', id);
    location.href = '/compare?' + q.toString();
  }
});

// ---------- failure tables: one split at a time ----------
function showSplit(split) {
  for (const b of document.querySelectorAll('#failure-splits button')) b.classList.toggle('on', b.dataset.split === split);
  for (const p of document.querySelectorAll('.split-pane')) {
    const on = p.dataset.split === split;
    p.hidden = !on;
    for (const [cls, id] of [['cause-table', 'cause-table'], ['killed-by', 'killed-by']]) {
      const t = p.querySelector('table.' + cls);
      if (t && on) t.id = id; else if (t) t.removeAttribute('id');
    }
  }
}
document.addEventListener('click', (ev) => {
  const b = ev.target.closest('#failure-splits button');
  if (b) showSplit(b.dataset.split);
});

// ---------- sorting: a table.sortable sorts by the clicked column ----------
document.addEventListener('click', (ev) => {
  const th = ev.target.closest('table.sortable th');
  if (!th) return;
  const table = th.closest('table');
  const body = table.tBodies[0];
  if (!body) return;
  const col = [...th.parentNode.children].indexOf(th);
  const desc = th.classList.contains('sorted') && !th.classList.contains('desc');
  for (const h of th.parentNode.children) h.classList.remove('sorted', 'desc');
  th.classList.add('sorted');
  if (desc) th.classList.add('desc');
  const key = (tr) => {
    const td = tr.children[col];
    if (!td) return '';
    const s = td.dataset.sort ?? td.textContent.trim();
    const x = Number(s.replace(/,/g, ''));
    return s !== '' && !Number.isNaN(x) ? x : s;
  };
  const rows = [...body.rows];
  rows.sort((a, b) => {
    const x = key(a), y = key(b);
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return desc ? -c : c;
  });
  body.append(...rows);
});

// ---------- the replay player ----------
// The episode page holds one page of frames (replay-data); the others
// are fetched from /api/v1/…/frames?step=N as the slider reaches them.
// A frame's rows are the screen rows that changed; a page's first frame
// holds them all.
function player(steps, show) {
  let i = 0, timer = null;
  const slider = document.getElementById('step-slider');
  const label = document.getElementById('step-label');
  const play = document.getElementById('play');
  const set = async (k, push = true) => {
    i = Math.max(0, Math.min(steps - 1, k));
    slider.value = i;
    const text = await show(i);
    label.textContent = 'step ' + (i + 1) + ' of ' + steps + (text ? ' · ' + text : '');
    if (push) {
      const u = new URL(location.href);
      u.searchParams.set('step', i);
      history.replaceState(null, '', u);
    }
  };
  const toggle = () => {
    if (timer) { clearInterval(timer); timer = null; play.textContent = '▶ play'; return; }
    play.textContent = '❚❚ pause';
    timer = setInterval(() => { if (i >= steps - 1) toggle(); else set(i + 1); }, 150);
  };
  slider.addEventListener('input', () => set(Number(slider.value)));
  document.getElementById('step-back').addEventListener('click', () => set(i - 1));
  document.getElementById('step-forward').addEventListener('click', () => set(i + 1));
  play.addEventListener('click', toggle);
  document.addEventListener('keydown', (ev) => {
    if (ev.target.tagName === 'INPUT' && ev.target.type !== 'range') return;
    if (ev.key === 'ArrowRight') set(i + 1); else if (ev.key === 'ArrowLeft') set(i - 1);
    else if (ev.key === ' ') toggle(); else if (ev.key === 'Home') set(0); else if (ev.key === 'End') set(steps - 1);
    else return;
    ev.preventDefault();
  });
  // Marks on the track and entries of the log go to their step.
  document.addEventListener('click', (ev) => {
    const m = ev.target.closest('#track [data-step], #log a[data-step]');
    if (!m) return;
    ev.preventDefault();
    set(Number(m.dataset.step));
  });
  const start = Number(new URLSearchParams(location.search).get('step') || 0);
  set(Number.isFinite(start) ? start : 0, false);
  return set;
}

function screenReplay(rp) {
  const pages = new Map(); // page start -> {frames, log}
  pages.set(rp.from, {frames: rp.frames, log: rp.log});
  let logFrom = rp.from; // the page whose log the list shows
  const isTerm = rp.kind === 'asciicast';
  const screen = document.getElementById(isTerm ? 'terminal' : 'map');
  const action = document.getElementById('action');
  const stateCells = new Map([...document.querySelectorAll('#state td[data-key]')].map((td) => [td.dataset.key, td]));
  const logList = document.getElementById('log');
  let logItems = [...document.querySelectorAll('#log li[data-step]')];
  const drawLog = (log) => {
    logList.replaceChildren(...log.map((e) => {
      const li = document.createElement('li');
      li.dataset.step = e.step;
      li.className = 'log-' + e.kind;
      const a = document.createElement('a');
      a.href = '?step=' + e.step;
      a.dataset.step = e.step;
      a.textContent = e.text;
      li.append(a);
      return li;
    }));
    logItems = [...logList.children];
  };
  const apiBase = '/api/v1' + location.pathname + '/frames';
  const load = async (from) => {
    if (pages.has(from)) return pages.get(from);
    const q = new URLSearchParams(location.search);
    q.set('step', from);
    const r = await fetch(apiBase + '?' + q.toString(), {headers: {Accept: 'application/json'}});
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    pages.set(from, {frames: body.frames, log: body.log});
    return pages.get(from);
  };
  const show = async (i) => {
    const from = Math.floor(i / rp.page_size) * rp.page_size;
    const page = await load(from);
    const frames = page.frames;
    if (from !== logFrom) { drawLog(page.log); logFrom = from; }
    // The screen at i: the page's full first frame, then each change.
    const rows = [];
    const state = {};
    let score = null;
    for (let k = 0; k <= i - from; k++) {
      const f = frames[k];
      if (f.score !== undefined) score = f.score;
      for (const r of f.rows) {
        if (isTerm) rows[r.y] = r.html || '';
        else {
          const old = Array.from(rows[r.y] || '');
          const t = Array.from(r.text || '');
          const x = r.x || 0;
          while (old.length < x) old.push(' ');
          old.splice(x, t.length, ...t);
          rows[r.y] = old.join('');
        }
      }
      Object.assign(state, f.state || {});
    }
    const f = frames[i - from];
    let last = rows.length;
    while (last > 0 && !(rows[last - 1] || '').trim()) last--;
    const lines = [];
    for (let y = 0; y < last; y++) lines.push(rows[y] || '');
    if (isTerm) screen.innerHTML = lines.join('\n'); // the server escaped each row's text
    else screen.textContent = lines.join('\n');
    for (const [k, td] of stateCells) td.textContent = state[k] ?? '';
    if (rp.kind === 'dungeon') {
      action.textContent = f.action ? f.label + ': action ' + f.action + ', reward ' + (f.reward || 0) + ', score ' + score
        : 'end: ' + (rp.end || 'the episode ended') + ', ' + f.label.replace(/^end, /, '') + ', score ' + score;
    } else {
      action.textContent = f.label + (f.keys ? ' · keys ' + f.keys : '');
    }
    // The log up to this step, the latest entry marked.
    let latest = null;
    for (const li of logItems) {
      const past = Number(li.dataset.step) <= i;
      li.classList.toggle('future', !past);
      li.classList.remove('latest');
      if (past) latest = li;
    }
    if (latest) latest.classList.add('latest');
    return f.label;
  };
  player(rp.steps, show);
  // A long recording is still read on the server: ask again until its
  // track is complete, then draw all its marks.
  if (!rp.events_complete) {
    const poll = async () => {
      const q = new URLSearchParams(location.search);
      q.set('step', 0);
      const r = await fetch(apiBase + '?' + q.toString(), {headers: {Accept: 'application/json'}});
      const body = await r.json();
      if (!r.ok || !body.events_complete) { setTimeout(poll, 1500); return; }
      drawTrack(body.events, body.steps);
    };
    setTimeout(poll, 1500);
  }
}

// drawTrack draws the marks of the slider's track (one per step event).
function drawTrack(events, steps) {
  const svg = document.getElementById('track');
  if (!svg) return;
  const ns = 'http://www.w3.org/2000/svg';
  for (const m of svg.querySelectorAll('rect.mark')) m.remove();
  for (const e of events) {
    const r = document.createElementNS(ns, 'rect');
    r.setAttribute('class', 'mark mark-' + e.kind);
    r.setAttribute('x', (596 * e.step / Math.max(1, steps - 1)).toFixed(1));
    r.setAttribute('y', 2);
    r.setAttribute('width', 4);
    r.setAttribute('height', 14);
    r.dataset.step = e.step;
    const t = document.createElementNS(ns, 'title');
    t.textContent = 'step ' + (e.step + 1) + ': ' + e.text;
    r.append(t);
    svg.append(r);
  }
  const note = document.getElementById('track-note');
  if (note) note.remove();
}

function transcriptReplay(steps) {
  const turns = [...document.querySelectorAll('#transcript .turn')];
  player(Math.max(1, steps), async (i) => {
    turns.forEach((t, k) => { t.hidden = k !== i; });
    return '';
  });
}

const data = document.getElementById('replay-data');
if (data) screenReplay(JSON.parse(data.textContent));
else if (document.getElementById('transcript') && document.getElementById('player')) transcriptReplay(Number(document.getElementById('player').dataset.steps));
