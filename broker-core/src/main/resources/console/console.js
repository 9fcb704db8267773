// The MOSES admin console. Everything it shows comes from the JSON admin API (/admin/*) and
// everything it does goes through it, as `moses plan` and `moses admin` do. No framework, no
// build step: plain DOM and uPlot (vendor/).
'use strict';

// A page that throws is a defect: errors are shown and kept for the browser tests.
window.mosesErrors = [];
function recordError(message) {
  window.mosesErrors.push(message);
  const box = document.getElementById('errors');
  if (box) { box.hidden = false; box.textContent = 'Console error: ' + message; }
}
window.addEventListener('error', e => recordError(e.message || String(e)));
window.addEventListener('unhandledrejection', e => recordError(String(e.reason && e.reason.stack || e.reason)));

const PERIOD_MS = 2000;
const KEEP_SAMPLES = 300;          // 10 minutes at 2 s
const COLORS = ['#2457a6', '#d1495b', '#2a9d8f', '#edae49', '#6a4c93', '#00798c', '#8d6a9f', '#e76f51', '#3d405b', '#81b29a'];

const state = {
  page: 'overview',
  samples: [],                     // {t, services: {name: {rt, a}}, classes: {name: {rt, rmax}}}
  planChanges: [],                 // {t, version}
  plan: null, status: null, services: [], classes: [], composites: [], history: [], events: [], processes: [], instances: null,
  wantFull: false,                 // the next refresh reads composites and processes too (after a deploy or a service change)
  tick: 0,
  charts: {},                      // id -> {plot, key}
};

class Unauthorized extends Error {}
class ApiError extends Error {}

async function api(path, options) {
  const r = await fetch('/admin/' + path, Object.assign({ credentials: 'same-origin', headers: { Accept: 'application/json' } }, options || {}));
  if (r.status === 401) { location.href = '/console/login'; throw new Unauthorized('session ended'); }
  let body = {};
  try { body = await r.json(); } catch (_) { /* not JSON: the status says enough */ }
  if (!r.ok) throw new ApiError(body.error || ('HTTP ' + r.status));
  return body;
}

// A change with a body of its own (JSON or a zip): the session cookie and the console's header.
function change(method, path, body, contentType) {
  return api(path, { method, body, headers: { Accept: 'application/json', 'Content-Type': contentType, 'X-Moses-Console': '1' } });
}

function act(path, reason) {
  return api(path, { method: 'POST', headers: { Accept: 'application/json', 'Content-Type': 'application/json', 'X-Moses-Console': '1' },
    body: JSON.stringify({ reason: reason || 'from the console' }) });
}

// ---------- small DOM helpers (text only: names come from the knowledge base) ----------
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-')) e.setAttribute(k, v);
    else if (k === 'style') e.setAttribute('style', v);
    else e[k] = v;
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}
function td(v, cls) { return el('td', cls ? { class: cls } : {}, v); }
function num(v, digits) { return v === null || v === undefined || Number.isNaN(v) ? '–' : Number(v).toFixed(digits); }
function badge(text, cls) { return el('span', { class: 'badge ' + (cls || text) }, text); }
function seconds(v) { return v < 90 ? Number(v.toFixed(3)) + ' s' : age(v); }

// A task's traits, as the Service Manager declared them (GET /admin/composites): what the plan
// may do with the task (a second call, another provider mid-conversation) and how it answers.
function traitsOf(composite, task) {
  const c = state.composites.find(x => x.name === composite);
  return c && c.traits ? c.traits[task] : null;
}
function traitBadges(t, brief) {
  if (!t) return [];
  const out = [];
  const trait = (text, title) => out.push(' ', el('span', { class: 'badge trait', title, 'data-trait': text }, text));
  if (t.idempotent) trait('idempotent', 'a second call is safe: the plan may call it 1-out-of-n, hedge it or send a timed-out call elsewhere');
  if (t.stateful) trait('stateful', 'its provider keeps conversation state: a process instance\'s calls on its partner link stay with one provider');
  if (t.callback) {
    const how = 'answered by the provider\'s call of ' + t.callback.operation + ', within ' + seconds(t.callback.timeout);
    trait('asynchronous', how);
    if (!brief) out.push(' by ', el('code', {}, t.callback.operation), ' within ' + seconds(t.callback.timeout));
  }
  return out;
}

function fill(tableId, rows) {
  const body = document.querySelector('#' + tableId + ' tbody');
  body.replaceChildren(...rows);
}
function age(seconds) {
  if (seconds === null || seconds === undefined) return '–';
  if (seconds < 90) return Math.round(seconds) + ' s';
  if (seconds < 5400) return Math.round(seconds / 60) + ' min';
  return (seconds / 3600).toFixed(1) + ' h';
}
function notice(text) {
  const n = document.getElementById('notice');
  n.hidden = !text;
  n.textContent = text || '';
}

// ---------- confirmation of every action ----------
function confirmAction(text) {
  const d = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  return new Promise(resolve => {
    d.addEventListener('close', () => resolve(d.returnValue === 'ok'), { once: true });
    d.returnValue = '';
    d.showModal();
  });
}

async function confirmed(question, path, done) {
  if (!(await confirmAction(question))) return;
  try {
    const r = await act(path);
    notice(done(r));
    refresh();
  } catch (e) {
    if (!(e instanceof Unauthorized)) notice('Refused: ' + e.message);
  }
}

// ---------- rendering ----------
function renderSummary() {
  const p = state.plan, s = state.status;
  document.getElementById('plan-version').textContent = p && p.version ? 'v' + p.version : 'none';
  document.getElementById('plan-objective').textContent = p && p.version ? num(p.objective, 4) : '–';
  document.getElementById('plan-solver').textContent = p && p.version ? p.solver : (s && s.optimizer) || '–';
  document.getElementById('plan-age').textContent = s ? age(s.planAgeSeconds) : '–';
}

function renderOverview() {
  const s = state.status || {};
  fill('monitors', Object.entries(s.monitors || {}).map(([name, running]) => el('tr', {},
    td(name), td(badge(running ? 'running' : 'stopped')),
    td(el('button', { class: running ? 'quiet' : '', 'data-monitor': name, onclick: () =>
      confirmed((running ? 'Switch monitor ' + name + ' off?' : 'Switch monitor ' + name + ' on?'),
        'monitors/' + encodeURIComponent(name) + '/' + (running ? 'off' : 'on'),
        r => 'Monitor ' + r.monitor + (r.running ? ' is running.' : ' is stopped.')) }, running ? 'Switch off' : 'Switch on')))));
  document.getElementById('adaptation-detail').textContent =
    'optimizer ' + (s.optimizer || '–') + ' · ' + (s.solves === undefined ? '–' : s.solves) + ' plans solved here · last change: ' + (s.lastChange || '–');

  // which composites the plans cover, and why the others are not (an unmanaged process, a task with no provider left)
  const planning = s.planning || { planned: [], unplanned: {} };
  fill('composites', state.composites.map(c => {
    const why = (planning.unplanned || {})[c.name];
    return el('tr', { 'data-composite': c.name }, td(c.name),
      td(el('div', {}, ...c.tasks.map(t => el('div', { 'data-task': t }, t, ...traitBadges((c.traits || {})[t]))))),
      td(why ? el('span', {}, badge('not planned', 'out'), ' ' + why) : (planning.planned || []).includes(c.name) ? badge('planned', 'met') : '–'));
  }));

  fill('classes', state.classes.map(k => {
    const o = k.observed;
    const met = o ? (o.responseTimeMet && o.availabilityMet) : null;
    const p = k.policing || {}; // this replica's counts since it started
    return el('tr', { 'data-class': k.name }, td(k.name), td(num(k.maxResponseTime, 3), 'num'), td(num(k.minAvailability, 4), 'num'),
      td(num(k.maxCost, 2), 'num'), td(num(k.price, 2), 'num'), td(o ? o.requests : 0, 'num'),
      td(o ? num(o.responseTime, 3) : '–', 'num'), td(o ? num(o.availability, 4) : '–', 'num'),
      td(met === null ? badge('no data', 'none') : badge(met ? 'met' : 'broken')),
      td(p.overRate || '–'), td(p.conforming === undefined ? '–' : p.conforming, 'num'), td(p.excess === undefined ? '–' : p.excess, 'num'),
      td(p.shed === undefined ? '–' : p.shed, 'num'), td(p.rejected === undefined ? '–' : p.rejected, 'num'));
  }));

  fill('services', state.services.map(c => {
    const o = c.observed;
    const out = c.state === 'out';
    return el('tr', { 'data-service': c.name, 'data-state': c.state }, td(c.name),
      td(el('span', {}, c.composite + ' / ' + c.task, ...traitBadges(traitsOf(c.composite, c.task), true))), td(el('code', {}, c.endpoint)),
      td(num(c.sla.responseTime, 3), 'num'), td(num(c.sla.availability, 4), 'num'), td(num(c.sla.cost, 2), 'num'),
      td(o ? o.samples : 0, 'num'), td(o ? num(o.responseTime, 3) : '–', 'num'), td(o ? num(o.availability, 4) : '–', 'num'),
      td(badge(c.state)),
      td(el('button', { class: out ? '' : 'quiet', 'data-hold': c.name, onclick: () =>
        confirmed(out ? 'Put ' + c.name + ' back in? The optimizer may plan it again.'
                      : 'Take ' + c.name + ' out? The next plan will not use it until you put it back in.',
          'concrete-services/' + encodeURIComponent(c.name) + '/' + (out ? 'in' : 'out'),
          r => (r.changed ? '' : 'Nothing changed: ') + r.service + (r.out ? ' is out of the plans; a new plan is being made.' : ' is back in; a new plan is being made.')) },
        out ? 'Put back in' : 'Take out')));
  }));

  renderManagement();

  const p = state.plan;
  document.getElementById('plan-detail').textContent = !p || !p.version ? 'No plan yet: every task goes to its first concrete service.'
    : 'Plan v' + p.version + ', made ' + new Date(p.created).toLocaleString() + ' (' + p.reason + '); objective ' + num(p.objective, 4)
      + ' by ' + p.solver + ' in ' + num(p.solveMillis, 1) + ' ms.';
  fill('plan', (p && p.bindings || []).map(b => el('tr', { 'data-binding': b.class + '/' + b.task }, td(b.class), td(b.composite), td(b.task),
    td(el('div', {}, ...b.shares.map(s => el('div', { class: 'share' },
      el('span', { class: 'bar', style: 'width:' + Math.max(2, Math.round(s.fraction * 120)) + 'px' }),
      el('code', {}, s.implementation), ' ' + (s.fraction * 100).toFixed(1) + ' %')))))));
  fill('predictions', Object.entries(p && p.predictions || {}).map(([k, v]) => el('tr', {}, td(k),
    td(num(v.responseTime, 3), 'num'), td(num(v.availability, 4), 'num'), td(num(v.cost, 2), 'num'))));
}

function renderHistory() {
  const h = state.history;
  fill('history', h.map((p, i) => {
    const before = h[i + 1];
    return el('tr', { 'data-version': p.version }, td('v' + p.version), td(new Date(p.created).toLocaleString()), td(p.reason),
      td((before ? num(before.objective, 4) : '–') + ' → ' + num(p.objective, 4)), td(p.solver), td(num(p.solveMillis, 1), 'num'),
      td((p.atRisk || []).map(r => r.class).join(', ') || '–'));
  }));
}

function renderEvents() {
  fill('events', state.events.length ? state.events.map(e => el('tr', {}, td(new Date(e.at).toLocaleString()), td(badge(e.kind, e.kind === 'VIOLATION' ? 'broken' : 'out')),
    td(e.class || '–'), td(e.user || '–'), td(e.detail || ''))) : [el('tr', {}, el('td', { colSpan: 5 }, 'No SLA events in the last 7 days.'))]);
}

// ---------- adding or changing a concrete service; deploying a process bundle ----------
// The forms are not re-rendered with the tables: only their choices follow the knowledge base,
// and only when they changed, so a choice being made is not lost every 2 s.
function setOptions(select, options, first) {
  const key = JSON.stringify(options);
  if (select.dataset.key === key) return;
  const chosen = select.value;
  select.replaceChildren(...(first ? [el('option', { value: '' }, first)] : []), ...options.map(([value, label]) => el('option', { value }, label)));
  select.dataset.key = key;
  if ([...select.options].some(o => o.value === chosen)) select.value = chosen;
}

function renderManagement() {
  setOptions(document.getElementById('svc-existing'),
    state.services.map(c => [c.name, c.name + ' (' + c.composite + ' / ' + c.task + ')']), '(a new service)');
  setOptions(document.getElementById('svc-task'),
    state.composites.flatMap(c => c.tasks.map(t => [JSON.stringify([c.name, t]), c.name + ' / ' + t])));
  // each unit with its stored version and every replica's: the cluster has converged when they agree
  fill('processes', state.processes.map(d => el('tr', { 'data-unit': d.name }, td(d.name),
    td(d.version == null ? 'this replica\'s --deploy' : d.version + (d.state === 'undeployed' ? ' (undeployed)' : '')),
    td(el('div', {}, ...Object.entries(d.modes || {}).map(([p, m]) => el('div', {}, el('code', {}, p.replace(/^\{.*\}/, '')), ' ' + m)))),
    td(el('div', {}, ...d.services.map(s => el('div', {}, el('code', {}, s))))),
    td(el('div', {}, ...Object.entries(d.replicas || {}).map(([r, v]) =>
      el('div', {}, r + ': ' + v.version + ' ', v.error ? badge('failed', 'broken') : badge('applied', 'up'), v.error ? ' ' + v.error : '')))))));
}

function result(id, text, refused) {
  const r = document.getElementById(id);
  r.hidden = !text;
  r.textContent = text || '';
  r.className = 'result' + (refused ? ' refused' : '');
}

const serviceFields = { responseTime: 'svc-rt', availability: 'svc-a', cost: 'svc-cost', maxRate: 'svc-rate' };

function clearServiceForm() {
  document.getElementById('service-form').reset();
  document.getElementById('svc-existing').value = '';
  editingService(null);
}

function editingService(name) {
  document.getElementById('svc-name').readOnly = !!name;
  document.getElementById('svc-task').disabled = !!name;  // a service's task is what it is: add another to serve a new one
  document.getElementById('svc-submit').textContent = name ? 'Change ' + name : 'Add service';
}

async function prefillService() {
  const name = document.getElementById('svc-existing').value;
  result('service-result', '');
  if (!name) { clearServiceForm(); return; }
  try {
    const s = await api('services/' + encodeURIComponent(name));
    document.getElementById('svc-name').value = s.name;
    document.getElementById('svc-task').value = JSON.stringify([s.composite, s.task]);
    document.getElementById('svc-endpoint').value = s.endpoint;
    for (const [f, id] of Object.entries(serviceFields)) document.getElementById(id).value = s[f];
    document.getElementById('svc-mapping').value = s.mapping ? JSON.stringify(s.mapping, null, 1) : '';
    editingService(s.name);
  } catch (e) {
    if (!(e instanceof Unauthorized)) result('service-result', 'Cannot read ' + name + ': ' + e.message, true);
  }
}

// The form as the Service Manager's JSON; empty fields are sent as null so the API names what is missing.
function serviceBody(existing) {
  const body = {};
  const value = id => document.getElementById(id).value.trim();
  if (!existing) {
    body.name = value('svc-name');
    const task = value('svc-task');
    const [composite, t] = task ? JSON.parse(task) : [null, null];
    body.composite = composite;
    body.task = t;
  }
  body.endpoint = value('svc-endpoint');
  for (const [f, id] of Object.entries(serviceFields)) {
    const v = value(id);
    body[f] = v === '' ? null : Number(v);
  }
  const mapping = value('svc-mapping');
  if (mapping) {
    try {
      body.mapping = JSON.parse(mapping);
    } catch (e) {
      throw new ApiError('the payload mapping is not JSON: ' + e.message);
    }
  }
  return body;
}

async function submitService(event) {
  event.preventDefault();
  const existing = document.getElementById('svc-existing').value;
  let body;
  try {
    body = serviceBody(existing);
  } catch (e) {
    result('service-result', 'Not sent: ' + e.message, true);
    return;
  }
  const question = existing
    ? 'Change ' + existing + ': endpoint ' + body.endpoint + ', response time ' + body.responseTime + ' s, availability ' + body.availability
      + ', cost ' + body.cost + ', max rate ' + body.maxRate + '? The broker re-plans at once.'
    : 'Add ' + (body.name || '(no name)') + ' for ' + (body.composite || '?') + ' / ' + (body.task || '?') + ' at ' + body.endpoint
      + '? The broker re-plans at once.';
  if (!(await confirmAction(question))) return;
  try {
    const r = existing ? await change('PUT', 'services/' + encodeURIComponent(existing), JSON.stringify(body), 'application/json')
                       : await change('POST', 'services', JSON.stringify(body), 'application/json');
    const done = (existing ? 'Changed ' : 'Added ') + r.service.name + ': ' + r.message + '.';
    result('service-result', done);
    notice(done);
    if (!existing) clearServiceForm();
    state.wantFull = true;
    refresh();
  } catch (e) {
    if (!(e instanceof Unauthorized)) result('service-result', 'Refused: ' + e.message, true);
  }
}

async function submitBundle(event) {
  event.preventDefault();
  const name = document.getElementById('bundle-name').value.trim();
  const file = document.getElementById('bundle-file').files[0];
  if (!name || !file) {
    result('bundle-result', 'Not sent: ' + (!name ? 'name the unit' : 'choose the zip of a deployment unit') + '.', true);
    return;
  }
  // a name already deployed gets a new version (PUT), as the admin API wants it
  const redeploy = state.processes.some(d => d.name === name && d.state !== 'undeployed');
  const question = (redeploy ? 'Deploy a new version of ' + name + ' (requests running finish on the old one)'
                             : 'Deploy ' + name) + ' from ' + file.name + ' (' + Math.ceil(file.size / 1024) + ' KiB)?';
  if (!(await confirmAction(question))) return;
  try {
    const r = await change(redeploy ? 'PUT' : 'POST', 'processes/' + encodeURIComponent(name), file, 'application/zip');
    const done = (redeploy ? 'Redeployed ' : 'Deployed ') + r.name + ' (version ' + r.version + '): ' + (r.services.join(', ') || 'no services') + '.';
    result('bundle-result', done);
    notice(done);
    document.getElementById('bundle-form').reset();
    state.wantFull = true;
    refresh();
  } catch (e) {
    if (!(e instanceof Unauthorized)) result('bundle-result', 'Refused: ' + e.message, true);
  }
}

// ---------- live plots (uPlot) ----------
function planMarkers() {
  return {
    hooks: {
      draw: [u => {
        const ctx = u.ctx, [x0, x1] = [u.scales.x.min, u.scales.x.max];
        ctx.save();
        ctx.strokeStyle = '#6a4c93'; ctx.fillStyle = '#6a4c93'; ctx.setLineDash([5, 4]); ctx.lineWidth = 1.5 * devicePixelRatio;
        ctx.font = (11 * devicePixelRatio) + 'px system-ui, sans-serif';
        for (const c of state.planChanges) {
          if (c.t < x0 || c.t > x1) continue;
          const x = Math.round(u.valToPos(c.t, 'x', true));
          ctx.beginPath(); ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
          ctx.fillText('v' + c.version, x + 3 * devicePixelRatio, u.bbox.top + 12 * devicePixelRatio);
        }
        ctx.restore();
      }],
    },
  };
}

// Whole seconds at least between time ticks, labelled HH:MM:SS: with uPlot's defaults a window
// of a few samples got half-second ticks (":51.500").
const TIME_INCRS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
const timeLabel = t => new Date(t * 1000).toLocaleTimeString('en-GB', { hour12: false });

function chart(id, container, series, data, yLabel, yRange) {
  const key = series.map(s => s.label).join('|');
  const width = Math.max(300, container.clientWidth - 10);
  const existing = state.charts[id];
  if (existing && existing.key === key) {
    if (Math.abs(existing.plot.width - width) > 20) existing.plot.setSize({ width, height: 240 });
    existing.plot.setData(data);
    return;
  }
  if (existing) existing.plot.destroy();
  container.replaceChildren();
  const plot = new uPlot({
    width, height: 240, plugins: [planMarkers()],
    // an availability is in [0, 1]: a fixed range, not uPlot's padded one (which went to 2)
    scales: { x: { time: true }, y: yRange ? { range: yRange } : {} },
    axes: [{ incrs: TIME_INCRS, values: (u, ticks) => ticks.map(timeLabel) }, { label: yLabel, size: 60 }],
    series: [{}].concat(series.map((s, i) => Object.assign({ stroke: COLORS[i % COLORS.length], width: 2, spanGaps: false }, s))),
  }, data, container);
  state.charts[id] = { plot, key };
}

function renderPlots() {
  if (typeof uPlot === 'undefined') return;
  const xs = state.samples.map(s => s.t);
  const names = [...new Set(state.services.map(s => s.name))].sort();
  chart('service-rt', document.getElementById('chart-service-rt'), names.map(n => ({ label: n })),
    [xs, ...names.map(n => state.samples.map(s => s.services[n] ? s.services[n].rt : null))], 'seconds');
  chart('service-a', document.getElementById('chart-service-a'), names.map(n => ({ label: n })),
    [xs, ...names.map(n => state.samples.map(s => s.services[n] ? s.services[n].a : null))], 'availability', [0, 1]);
  const holder = document.getElementById('class-charts');
  for (const k of state.classes) {
    const id = 'class-' + k.name;
    let box = document.getElementById('chart-' + id);
    if (!box) {
      box = el('div', { id: 'chart-' + id, class: 'chart' });
      holder.append(el('div', { class: 'card' }, el('h2', {}, 'Class ' + k.name + ': response time against R_max (s)'), box));
    }
    chart(id, box, [{ label: k.name + ' R observed' }, { label: 'R_max', stroke: '#a61b1b', dash: [8, 4], width: 1.5 }],
      [xs, state.samples.map(s => s.classes[k.name] ? s.classes[k.name].rt : null), state.samples.map(() => k.maxResponseTime)], 'seconds');
  }
}

function record() {
  const t = Date.now() / 1000;
  const services = {}, classes = {};
  for (const s of state.services)
    services[s.name] = { rt: s.observed && s.observed.responseTime !== null ? s.observed.responseTime : null,
                         a: s.observed ? s.observed.availability : (s.state === 'up' ? null : 0) };
  for (const k of state.classes) classes[k.name] = { rt: k.observed ? k.observed.responseTime : null };
  state.samples.push({ t, services, classes });
  if (state.samples.length > KEEP_SAMPLES) state.samples.shift();
  const v = state.plan && state.plan.version;
  const last = state.planChanges[state.planChanges.length - 1];
  if (v && (!last || last.version !== v)) {
    // the first plan seen is placed where it was made; later ones where they were seen or made
    const made = Date.parse(state.plan.created) / 1000;
    state.planChanges.push({ t: Number.isNaN(made) ? t : Math.min(t, made), version: v });
  }
}

// ---------- the polling loop ----------
let refreshing = false;
async function refresh() {
  if (refreshing) return;
  refreshing = true;
  const connection = document.getElementById('connection');
  try {
    const slow = state.tick % 3 === 0 || state.wantFull;
    state.wantFull = false;
    const [status, plan, services, classes] = await Promise.all([api('status'), api('plan'), api('concrete-services'), api('compliance')]);
    const planChanged = !state.plan || state.plan.version !== plan.version;
    Object.assign(state, { status, plan, services, classes });
    if (slow || planChanged) {
      const [history, events, composites, processes] = await Promise.all([api('plans?n=30'), api('events?n=100'), api('composites'), api('processes')]);
      Object.assign(state, { history, events, composites, processes });
      // plan changes from the history too, so the plots mark those made before the page opened
      for (const p of history) {
        const t = Date.parse(p.created) / 1000;
        if (!Number.isNaN(t) && !state.planChanges.some(c => c.version === p.version)) state.planChanges.push({ t, version: p.version });
      }
      state.planChanges.sort((a, b) => a.t - b.t);
    }
    if (state.page === 'instances') {
      try { state.instances = (await api('instances?limit=100')).instances; }
      catch (e) { if (e instanceof Unauthorized) throw e; state.instances = null; notice('Instances: ' + e.message); }
    }
    state.tick++;
    record();
    connection.textContent = 'live';
    connection.className = 'badge up';
    render();
  } catch (e) {
    if (e instanceof Unauthorized) return;
    connection.textContent = e instanceof ApiError ? 'API: ' + e.message : 'broker unreachable';
    connection.className = 'badge offline';
  } finally {
    refreshing = false;
  }
}

function render() {
  renderSummary();
  if (state.page === 'overview') renderOverview();
  if (state.page === 'plots') renderPlots();
  if (state.page === 'history') renderHistory();
  if (state.page === 'events') renderEvents();
  if (state.page === 'instances') renderInstances();
}

// ---------- durable instances, with their actions (each confirmed) ----------
function renderInstances() {
  const actions = i => {
    const cell = el('td', {});
    const can = { suspend: ['new', 'ready', 'active'].includes(i.state), resume: i.state === 'suspended',
                  terminate: !['completed', 'faulted', 'terminated'].includes(i.state) };
    for (const [action, allowed] of Object.entries(can))
      if (allowed) {
        const b = el('button', { class: 'quiet', 'data-action': action }, action);
        b.addEventListener('click', () => confirmed(action[0].toUpperCase() + action.slice(1) + ' instance ' + i.id + '?',
          'instances/' + i.id + '/' + action, r => 'Instance ' + r.id + ' is ' + r.state + '.'));
        cell.append(b);
      }
    return cell;
  };
  const correlation = c => Object.entries(c || {}).map(([set, props]) =>
    set + ': ' + Object.entries(props).map(([k, v]) => k + '=' + v).join(', ')).join('; ');
  fill('instances', (state.instances || []).map(i => el('tr', { 'data-instance': String(i.id) },
    td(i.id), td(badge(i.state)), td(String(i.process).replace(/^\{[^}]*\}/, '')), td(i.started || '–'), td(i.lastActive || '–'),
    td(correlation(i.correlation) || '–'), td(i.owner || '–'), actions(i))));
}

function show(page) {
  if (!['overview', 'plots', 'history', 'events', 'whatif', 'instances'].includes(page)) page = 'overview';
  const opened = page !== state.page;
  state.page = page;
  if (opened && page === 'instances') refresh();
  for (const s of document.querySelectorAll('.page')) s.hidden = s.id !== 'page-' + page;
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.dataset.page === page);
  render();
}

document.getElementById('replan').addEventListener('click', () =>
  confirmed('Ask the optimizer for a new plan now?', 'replan', r => 'New plan requested (plan in force: v' + r.planVersion + ').'));
document.getElementById('svc-existing').addEventListener('change', prefillService);
document.getElementById('svc-clear').addEventListener('click', () => { clearServiceForm(); result('service-result', ''); });
document.getElementById('service-form').addEventListener('submit', submitService);
document.getElementById('bundle-form').addEventListener('submit', submitBundle);
for (const b of document.querySelectorAll('button[data-goto]'))
  b.addEventListener('click', () => {
    const card = document.getElementById(b.dataset.goto);
    card.scrollIntoView({ behavior: 'smooth', block: 'start' });
    card.querySelector('input, select').focus({ preventScroll: true });
  });
window.addEventListener('hashchange', () => show(location.hash.slice(1)));
show(location.hash.slice(1));
refresh();
setInterval(refresh, PERIOD_MS);
