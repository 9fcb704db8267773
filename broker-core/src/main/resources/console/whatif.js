'use strict';
// The "What if" page: the changes (one a line, in the text form of POST /admin/what-if), the plan
// in force and the plan the optimizer would make side by side, each class's verdicts and the rate
// it can still admit, and an Apply button where every change has an admin action (the answer's
// `actions`: take a service out, subscribe, change a rate, a class's SLA, a provider's cost);
// where one has none the page says why instead.

function whatIfShares(plan, key) {
  if (!plan || !plan.bindings) return '';
  const b = plan.bindings.find(x => x.class + ' ' + x.task === key);
  return b ? b.shares.filter(s => s.fraction > 1e-6).map(s => s.implementation + ' ' + Math.round(100 * s.fraction) + '%').join(', ') : '';
}

function whatIfVerdict(p) {
  if (!p) return '–';
  const broken = [p.responseTimeMet ? '' : 'R', p.availabilityMet ? '' : 'A', p.costMet ? '' : 'C'].join('');
  return num(p.responseTime, 3) + ' / ' + num(p.availability, 4) + ' / ' + num(p.cost, 2) + ' ' + (broken ? 'BREAKS ' + broken : 'ok');
}

function whatIfRate(r) {
  return r ? num(r.before, 1) + ' → ' + num(r.after, 1) : '–';
}

// The answer's actions, kept for Apply (null: some change has none).
let whatIfPending = null;

async function askWhatIf(ev) {
  ev.preventDefault();
  const changes = document.getElementById('whatif-changes').value.split('\n').map(s => s.trim()).filter(s => s);
  const box = document.getElementById('whatif-answer');
  try {
    const a = await change('POST', 'what-if', JSON.stringify({ changes }), 'application/json');
    result('whatif-result', a.status + ': ' + a.message + '. Objective ' + num(a.objectiveBefore, 4) + ' (v' + a.planInForce + ') → '
      + num(a.objectiveAfter, 4) + '. The rates a class can still admit are to within ' + num(a.admissibleRateWithin.after, 1) + ' req/s'
      + (a.atRisk.length ? '. Classes at risk: ' + a.atRisk.map(r => r.class).join(', ') : '. Every class keeps its SLA.'),
      !a.keepsEverySla);
    const keys = [...new Set([...(a.inForce.bindings || []), ...((a.plan && a.plan.bindings) || [])].map(b => b.class + ' ' + b.task))].sort();
    fill('whatif-plans', keys.map(k => {
      const before = whatIfShares(a.inForce, k), after = whatIfShares(a.plan, k);
      return el('tr', { 'data-key': k, class: before === after ? '' : 'changed' }, td(k), td(before), td(after || '(not planned)'));
    }));
    fill('whatif-classes', a.classes.map(c => el('tr', { 'data-class': c.class }, td(c.class),
      td(num(c.sla.maxResponseTime, 3) + ' / ' + num(c.sla.minAvailability, 4) + ' / ' + num(c.sla.maxCost, 2)),
      td(whatIfVerdict(c.before)), td(whatIfVerdict(c.after)), td(whatIfRate(c.admissibleRate)))));
    const none = a.actions.filter(x => x.none);
    whatIfPending = none.length ? null : a.actions;
    document.getElementById('whatif-apply').hidden = !whatIfPending;
    // a new subscriber needs a name and a password of its own
    document.getElementById('whatif-subscriber').hidden = !(whatIfPending && whatIfPending.some(x => x.asks));
    const why = document.getElementById('whatif-noapply');
    why.hidden = !none.length;
    why.textContent = none.length ? 'No Apply: ' + none.map(x => x.change + ': ' + x.none).join('; ') + '.' : '';
    box.hidden = false;
  } catch (e) {
    if (!(e instanceof Unauthorized)) { result('whatif-result', 'Refused: ' + e.message, true); box.hidden = true; }
  }
}

// Each change's admin call in order, through the same API as everywhere else; the first refusal stops the rest.
async function applyWhatIf() {
  const actions = whatIfPending || [];
  const asked = { user: document.getElementById('whatif-user').value.trim(), password: document.getElementById('whatif-password').value };
  const label = x => x.change + (x.asks ? ' as ' + asked.user : '');
  if (actions.some(x => x.asks) && !asked.user) { notice('Refused: name the new subscriber (and its password) to subscribe it'); return; }
  if (!(await confirmAction('Apply for real: ' + actions.map(label).join('; ') + '?'))) return;
  const done = [];
  try {
    let r = {};
    for (const x of actions) {
      const body = Object.assign({}, x.body);
      for (const f of x.asks || []) body[f] = asked[f];
      r = await change(x.method, x.path.replace(/^\/admin\//, ''), JSON.stringify(body), 'application/json');
      done.push(label(x));
    }
    notice('Applied: ' + done.join('; ') + (r.planVersion ? ' (plan in force: v' + r.planVersion + ').' : '.'));
    document.getElementById('whatif-apply').hidden = true;
    whatIfPending = null;
    refresh();
  } catch (e) {
    if (!(e instanceof Unauthorized)) notice((done.length ? 'Applied: ' + done.join('; ') + '. ' : '') + 'Refused: ' + e.message);
  }
}

document.getElementById('whatif-form').addEventListener('submit', askWhatIf);
document.getElementById('whatif-apply').addEventListener('click', applyWhatIf);
