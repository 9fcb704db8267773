'use strict';
// The "What if" page: the changes (one a line, in the text form of POST /admin/what-if), the plan
// in force and the plan the optimizer would make side by side, each class's verdicts, and an
// Apply button where the changes are actions the admin API has (taking services out).

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

// The services the changes take out, or null when some change is not an action (only a question).
function whatIfActions(changes) {
  const out = [];
  for (const c of changes) {
    const m = /^(?:down|out)\s+(\S+)$/.exec(c.trim());
    if (!m) return null;
    out.push(m[1]);
  }
  return out;
}

async function askWhatIf(ev) {
  ev.preventDefault();
  const changes = document.getElementById('whatif-changes').value.split('\n').map(s => s.trim()).filter(s => s);
  const box = document.getElementById('whatif-answer');
  try {
    const a = await change('POST', 'what-if', JSON.stringify({ changes }), 'application/json');
    result('whatif-result', a.status + ': ' + a.message + '. Objective ' + num(a.objectiveBefore, 4) + ' (v' + a.planInForce + ') → '
      + num(a.objectiveAfter, 4) + (a.atRisk.length ? '. Classes at risk: ' + a.atRisk.map(r => r.class).join(', ') : '. Every class keeps its SLA.'),
      !a.keepsEverySla);
    const keys = [...new Set([...(a.inForce.bindings || []), ...((a.plan && a.plan.bindings) || [])].map(b => b.class + ' ' + b.task))].sort();
    fill('whatif-plans', keys.map(k => {
      const before = whatIfShares(a.inForce, k), after = whatIfShares(a.plan, k);
      return el('tr', { 'data-key': k, class: before === after ? '' : 'changed' }, td(k), td(before), td(after || '(not planned)'));
    }));
    fill('whatif-classes', a.classes.map(c => el('tr', { 'data-class': c.class }, td(c.class),
      td(num(c.sla.maxResponseTime, 3) + ' / ' + num(c.sla.minAvailability, 4) + ' / ' + num(c.sla.maxCost, 2)),
      td(whatIfVerdict(c.before)), td(whatIfVerdict(c.after)))));
    const apply = document.getElementById('whatif-apply');
    const services = whatIfActions(a.changes);
    apply.hidden = !services || services.length === 0;
    apply.dataset.services = services ? services.join(' ') : '';
    box.hidden = false;
  } catch (e) {
    if (!(e instanceof Unauthorized)) { result('whatif-result', 'Refused: ' + e.message, true); box.hidden = true; }
  }
}

async function applyWhatIf() {
  const services = document.getElementById('whatif-apply').dataset.services.split(' ').filter(s => s);
  if (!(await confirmAction('Take ' + services.join(', ') + ' out of every replica\'s plans?'))) return;
  try {
    let r;
    for (const s of services) r = await act('concrete-services/' + encodeURIComponent(s) + '/out', 'what-if applied from the console');
    notice('Taken out: ' + services.join(', ') + ' (plan in force: v' + r.planVersion + ').');
    document.getElementById('whatif-apply').hidden = true;
    refresh();
  } catch (e) {
    if (!(e instanceof Unauthorized)) notice('Refused: ' + e.message);
  }
}

document.getElementById('whatif-form').addEventListener('submit', askWhatIf);
document.getElementById('whatif-apply').addEventListener('click', applyWhatIf);
