// The ctxledger report page. Everything comes from the JSON in #report-data; contexts are
// references (runs of group indexes) expanded here on demand, in the order render() uses.
'use strict';
const data = JSON.parse(document.getElementById('report-data').textContent);
const SECTIONS = {p: 'prefix', n: 'pinned', w: 'window'};
const indexOf = new Map(data.timeline.map((entry, index) => [entry[0], index]));

function cell(row, value, className) {
  const td = document.createElement('td');
  td.textContent = value;
  if (className) td.className = className;
  row.appendChild(td);
}

function sessionRows(version) {
  const [count, served, tokens, runs] = data.contexts[indexOf.get(version)];
  const rows = [];
  let head = served === null ? null : data.summary_blocks[served];
  const summaryRow = () => { rows.push([head[0], 'user', 'summary', head[2], head[1], '']); head = null; };
  for (const [first, end, code] of runs) {
    for (let group = first; group < end; group++) {
      if (head && code !== 'p') summaryRow();
      const stop = Math.min(group + 1 < data.groups.length ? data.groups[group + 1] : data.messages.length, count);
      for (let index = data.groups[group]; index < stop; index++) {
        const [id, role, messageTokens, text] = data.messages[index];
        const mask = data.masks[index];
        if (mask && mask[0] <= version) rows.push([id, role, SECTIONS[code], mask[1], mask[2], 'masked']);
        else rows.push([id, role, SECTIONS[code], messageTokens, text, '']);
      }
    }
  }
  if (head) summaryRow();
  const title = rows.length + ' messages, ' + tokens + ' tokens, summary ' +
    (served === null ? 'none' : 'v' + served);
  return {rows, tokens, title};
}

function streamRows(version) {
  const end = indexOf.get(version) + 1;
  const rows = [];
  let tokens = 0;
  for (let index = 0; index < end; index++) {
    const [who, rowTokens, text] = data.rows[index];
    tokens += rowTokens;
    rows.push([String(data.timeline[index][0]), who, data.timeline[index][2], rowTokens, text, '']);
  }
  return {rows, tokens, title: end + ' events, ' + tokens + ' tokens of text'};
}

function show(version) {
  version = Number(version);
  if (!indexOf.has(version)) version = data.timeline[data.timeline.length - 1][0];
  const {rows, tokens, title} = data.kind === 'session' ? sessionRows(version) : streamRows(version);
  const panel = document.getElementById('context');
  panel.dataset.shownVersion = version;
  panel.dataset.tokens = tokens;
  document.getElementById('context-title').textContent =
    (data.kind === 'session' ? 'Context at version ' : 'The stream at version ') + version + ': ' + title;
  const body = document.getElementById('context-rows');
  const fragment = document.createDocumentFragment();
  for (const [id, role, section, rowTokens, text, extra] of rows) {
    const tr = document.createElement('tr');
    tr.className = section + (extra ? ' ' + extra : '');
    tr.dataset.messageId = id;
    for (const value of [id, role, section, rowTokens]) cell(tr, value);
    cell(tr, text, 'text');
    fragment.appendChild(tr);
  }
  body.replaceChildren(fragment);
  const previous = document.querySelector('#timeline li.selected');
  if (previous) previous.classList.remove('selected');
  const item = document.querySelector('#timeline li[data-version="' + version + '"]');
  if (item) {
    item.classList.add('selected');
    // Scroll the timeline box only (scrollIntoView would scroll the page as well).
    const box = document.getElementById('timeline');
    if (item.offsetTop < box.scrollTop || item.offsetTop > box.scrollTop + box.clientHeight - 30) {
      box.scrollTop = item.offsetTop - box.clientHeight / 2;
    }
  }
  if (location.hash !== '#v' + version) history.replaceState(null, '', '#v' + version);
}

function describe(entry) {
  if (entry[6] < 0) return entry[5];
  const [id, role, , text] = data.messages[entry[6]];
  return role + ' ' + id + ': ' + text.slice(0, 160);
}

function buildTimeline() {
  const list = document.getElementById('timeline-list');
  const fragment = document.createDocumentFragment();
  const counts = new Map();
  for (const entry of data.timeline) {
    const li = document.createElement('li');
    li.dataset.version = entry[0];
    li.dataset.type = entry[2];
    li.title = 'position ' + entry[1] + ', ' + entry[3] + ', hash ' + entry[4];
    const type = document.createElement('span');
    type.className = 'type';
    type.textContent = entry[2];
    li.append(entry[0] + '. ', type, ' ' + (describe(entry) || ''));
    fragment.appendChild(li);
    counts.set(entry[2], (counts.get(entry[2]) || 0) + 1);
  }
  list.appendChild(fragment);
  list.addEventListener('click', (event) => {
    const li = event.target.closest('li');
    if (li) show(li.dataset.version);
  });
  const filters = document.getElementById('timeline-filters');
  for (const [type, count] of counts) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox'; box.checked = true; box.value = type;
    box.addEventListener('change', filterTimeline);
    label.append(box, ' ' + type + ' (' + count + ')');
    filters.appendChild(label);
  }
  document.getElementById('timeline-search').addEventListener('input', filterTimeline);
}

function filterTimeline() {
  const shown = new Set([...document.querySelectorAll('#timeline-filters input:checked')].map((b) => b.value));
  const needle = document.getElementById('timeline-search').value.toLowerCase();
  let visible = 0;
  for (const li of document.querySelectorAll('#timeline li')) {
    const keep = shown.has(li.dataset.type) && (!needle || li.textContent.toLowerCase().includes(needle));
    li.hidden = !keep;
    visible += keep;
  }
  document.getElementById('timeline').dataset.visible = visible;
}

function chartSeries() {
  const versions = data.timeline.map((entry) => entry[0]);
  if (data.kind !== 'session') {
    return {columns: [versions, data.history], series: [{label: 'text tokens so far', stroke: '#2563eb'}]};
  }
  const sent = new Array(versions.length).fill(null);
  for (const [version, input] of data.calls) sent[indexOf.get(version)] = input;
  const usable = new Array(versions.length).fill(data.budget.usable);
  return {
    columns: [versions, data.history, data.contexts.map((c) => c[2]), sent, usable],
    series: [
      {label: 'history tokens', stroke: '#9ca3af', width: 1.5},
      {label: 'context tokens (planned)', stroke: '#16a34a', width: 1.5},
      {label: 'sent to the model', stroke: '#2563eb', width: 0, points: {show: true, size: 5, fill: '#2563eb'}},
      {label: 'usable budget', stroke: '#dc2626', dash: [6, 4], width: 1, points: {show: false}},
    ],
  };
}

function drawCompactions(u) {
  if (data.kind !== 'session') return;
  const context = u.ctx;
  context.save();
  context.strokeStyle = '#f97316';
  context.setLineDash([4, 4]);
  for (const [version] of data.compactions) {
    const x = Math.round(u.valToPos(version, 'x', true));
    if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
    context.beginPath(); context.moveTo(x, u.bbox.top); context.lineTo(x, u.bbox.top + u.bbox.height); context.stroke();
  }
  context.restore();
}

function buildChart() {
  const target = document.getElementById('tokens-chart');
  const {columns, series} = chartSeries();
  const options = {
    width: Math.max(400, target.clientWidth - 10), height: 300,
    scales: {x: {time: false}},
    axes: [{label: 'version'}, {label: 'tokens', size: 70}],
    series: [{label: 'version'}, ...series],
    cursor: {drag: {x: true, y: false}},
    hooks: {draw: [drawCompactions]},
  };
  const chart = new uPlot(options, columns, target);
  let pressed = null;
  chart.over.addEventListener('mousedown', (event) => { pressed = event.clientX; });
  chart.over.addEventListener('mouseup', (event) => {
    // A click (not the end of a zooming drag) selects the version under the cursor.
    if (pressed !== null && Math.abs(event.clientX - pressed) < 3 && chart.cursor.idx != null) {
      show(columns[0][chart.cursor.idx]);
    }
    pressed = null;
  });
  window.reportChart = chart;
}

buildTimeline();
buildChart();
const last = data.timeline[data.timeline.length - 1][0];
show(location.hash.startsWith('#v') ? location.hash.slice(2) : last);
window.addEventListener('hashchange', () => show(location.hash.slice(2)));
