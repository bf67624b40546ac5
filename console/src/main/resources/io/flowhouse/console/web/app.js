// SPDX-License-Identifier: Apache-2.0
// The console page: reads its state from the URL, asks the JSON API, draws with Apache ECharts.
'use strict';

const $ = (id) => document.getElementById(id);
const STATE_KEYS = ['view', 'range', 'from', 'to', 'dimension', 'dimensions', 'filter', 'metric',
  'limit', 'resolution', 'counter'];
const DEFAULTS = { view: 'traffic', range: '24h', dimension: 'Exporter', dimensions: 'SrcAS,DstAS',
  metric: 'bytes', limit: '10', resolution: 'auto', counter: 'records', filter: '' };
let chart = null;
let fields = null;

function state() {
  const p = new URLSearchParams(location.search);
  const s = {};
  for (const k of STATE_KEYS) s[k] = p.has(k) ? p.get(k) : DEFAULTS[k];
  if (p.has('from')) s.range = 'custom';
  return s;
}

function setState(s) {
  const p = new URLSearchParams();
  for (const k of STATE_KEYS) {
    if (s[k] === undefined || s[k] === null || s[k] === '') continue;
    if (k === 'range' && s.range === 'custom') continue;
    if ((k === 'from' || k === 'to') && s.range !== 'custom') continue;
    if (s[k] !== DEFAULTS[k] || k === 'view') p.set(k, s[k]);
  }
  history.pushState(null, '', '?' + p.toString());
}

function fmt(n) { return Number(n).toLocaleString('en-US'); }

function rate(v, step, metric) {
  const x = metric === 'bytes' ? v * 8 / step : v / step;
  const units = metric === 'bytes' ? ['b/s', 'kb/s', 'Mb/s', 'Gb/s', 'Tb/s'] : ['/s', 'k/s', 'M/s', 'G/s', 'T/s'];
  let i = 0, y = x;
  while (Math.abs(y) >= 1000 && i < units.length - 1) { y /= 1000; i++; }
  return y.toFixed(y < 10 && i > 0 ? 2 : 1) + ' ' + units[i];
}

function apiParams(s, view) {
  const p = new URLSearchParams();
  if (s.range === 'custom') { p.set('from', s.from || ''); if (s.to) p.set('to', s.to); }
  else p.set('range', s.range);
  if (s.filter) p.set('filter', s.filter);
  if (view !== 'exporters') { p.set('metric', s.metric); p.set('resolution', s.resolution); }
  if (view === 'traffic') { p.set('dimension', s.dimension); p.set('limit', s.limit); }
  if (view === 'sankey') p.set('dimensions', s.dimensions);
  return p;
}

function showError(text) {
  const e = $('error');
  e.textContent = text || '';
  e.hidden = !text;
}

function status(text, st) {
  const f = $('status');
  f.textContent = text;
  f.dataset.state = st;
}

async function load() {
  const s = state();
  syncControls(s);
  status('loading...', 'loading');
  showError('');
  const res = await fetch('/api/' + s.view + '?' + apiParams(s, s.view));
  const body = await res.json();
  if (!res.ok) {
    showError(body.error + (body.position >= 0 ? '  (at character ' + body.position + ')' : ''));
    status('error ' + res.status, 'error');
    clearView();
    return;
  }
  $('notes').textContent = [
    'resolution ' + (body.resolution || '1m') + (body.table ? ' (' + body.table + ', ' + body.source + ')' : ''),
    'step ' + body.step + ' s',
    new Date(body.from * 1000).toISOString() + ' .. ' + new Date(body.to * 1000).toISOString(),
  ].concat(body.notes || []).join(' · ');
  if (s.view === 'traffic') drawTraffic(body, s);
  else if (s.view === 'sankey') drawSankey(body, s);
  else drawExporters(body, s);
  status(body.queries.length + ' queries, ' + fmt(body.rowsRead) + ' rows read, ' +
    body.queryMillis + ' ms in ClickHouse', 'ready');
}

function clearView() {
  if (chart) chart.clear();
  $('table').tHead.innerHTML = '';
  $('table').tBodies[0].innerHTML = '';
  $('table').tFoot.innerHTML = '';
}

function timeLabels(ts) { return ts.map((t) => new Date(t * 1000).toISOString().substring(5, 16).replace('T', ' ')); }

function drawTraffic(b, s) {
  const series = b.series.map((x) => ({ name: x.label, type: 'line', stack: 'all', areaStyle: {},
    showSymbol: false, data: x.values.map((v) => v * (s.metric === 'bytes' ? 8 : 1) / b.step) }));
  if (b.otherValues) {
    series.push({ name: 'other', type: 'line', stack: 'all', areaStyle: {}, showSymbol: false,
      data: b.otherValues.map((v) => v * (s.metric === 'bytes' ? 8 : 1) / b.step) });
  }
  chart.setOption({
    tooltip: { trigger: 'axis', valueFormatter: (v) => rate(v * b.step / (s.metric === 'bytes' ? 8 : 1), b.step, s.metric) },
    legend: { type: 'scroll', top: 0 },
    grid: { left: 70, right: 20, top: 40, bottom: 30 },
    xAxis: { type: 'category', boundaryGap: false, data: timeLabels(b.timestamps) },
    yAxis: { type: 'value', name: b.rateUnit },
    series,
  }, true);
  const head = '<tr><th>' + esc(b.dimensions[0]) + '</th><th>bytes</th><th>packets</th><th>flows</th>' +
    '<th>%</th><th>avg rate</th><th>bytes bound</th></tr>';
  $('table').tHead.innerHTML = head;
  const span = b.to - b.from;
  $('table').tBodies[0].innerHTML = b.rows.map((r) =>
    '<tr data-key="' + esc(r.key.join('|')) + '"><td><a href="#" data-filter="' + esc(r.filter) + '">' + esc(r.label) +
    '</a></td><td class="bytes">' + fmt(r.bytes) + '</td><td class="packets">' + fmt(r.packets) +
    '</td><td class="flows">' + fmt(r.flows) + '</td><td class="percent">' +
    (r.percent === null ? '' : r.percent.toFixed(2)) + '</td><td>' +
    rate(s.metric === 'bytes' ? r.bytes : s.metric === 'packets' ? r.packets : r.flows, span, s.metric) +
    '</td><td class="' + (r.exact ? 'exact' : 'inexact') + '">' +
    (r.exact ? 'exact' : fmt(r.bytesLow) + ' .. ' + fmt(r.bytesHigh)) + '</td></tr>').join('');
  $('table').tFoot.innerHTML =
    '<tr class="other"><td>other</td><td class="bytes">' + fmt(b.other.bytes) + '</td><td class="packets">' +
    fmt(b.other.packets) + '</td><td class="flows">' + fmt(b.other.flows) + '</td><td></td><td></td><td></td></tr>' +
    '<tr class="total"><td>total</td><td class="bytes" id="total-bytes">' + fmt(b.total.bytes) +
    '</td><td class="packets" id="total-packets">' + fmt(b.total.packets) + '</td><td class="flows" id="total-flows">' +
    fmt(b.total.flows) + '</td><td>100.00</td><td>' + rate(b.total[s.metric], span, s.metric) + '</td><td></td></tr>';
  for (const a of $('table').querySelectorAll('a[data-filter]')) {
    a.addEventListener('click', (e) => {
      e.preventDefault();
      const st = state();
      const f = a.dataset.filter;
      st.filter = st.filter ? '(' + st.filter + ') AND ' + f : f;
      setState(st);
      load();
    });
  }
}

function drawSankey(b, s) {
  chart.setOption({
    tooltip: { trigger: 'item' },
    series: [{ type: 'sankey', emphasis: { focus: 'adjacency' }, nodeGap: 6, left: 20, right: 160,
      data: b.nodes, links: b.links, label: { fontSize: 11 } }],
  }, true);
  $('table').tHead.innerHTML = '<tr>' + b.dimensions.map((d) => '<th>' + esc(d) + '</th>').join('') +
    '<th>' + esc(s.metric) + '</th></tr>';
  $('table').tBodies[0].innerHTML = b.combinations.map((c) =>
    '<tr>' + c.labels.map((l) => '<td>' + esc(l) + '</td>').join('') + '<td class="value">' + fmt(c.value) + '</td></tr>').join('');
  const pad = '<td></td>'.repeat(b.dimensions.length - 1);
  $('table').tFoot.innerHTML = '<tr><td>other</td>' + pad + '<td id="sankey-other">' + fmt(b.other) +
    '</td></tr><tr><td>total</td>' + pad + '<td id="sankey-total">' + fmt(b.total) + '</td></tr>';
}

function drawExporters(b, s) {
  const c = s.counter;
  const series = Object.entries(b.series).map(([e, v]) => ({ name: e, type: 'line', stack: 'all',
    areaStyle: {}, showSymbol: false, data: v[c] }));
  chart.setOption({
    tooltip: { trigger: 'axis' }, legend: { type: 'scroll', top: 0 },
    grid: { left: 70, right: 20, top: 40, bottom: 30 },
    xAxis: { type: 'category', boundaryGap: false, data: timeLabels(b.timestamps) },
    yAxis: { type: 'value', name: c + ' per ' + b.step + ' s' }, series,
  }, true);
  const cols = ['datagrams', 'records', 'sequenceGaps', 'lostDatagrams', 'lostRecords', 'sequenceResets',
    'recordsBeforeTemplate', 'rejectedRecords', 'deadLetters'];
  $('table').tHead.innerHTML = '<tr><th>exporter</th><th>versions</th>' +
    cols.map((x) => '<th>' + esc(x) + '</th>').join('') + '<th>problems</th></tr>';
  $('table').tBodies[0].innerHTML = b.rows.map((r) => '<tr><td>' + esc(r.exporter) + '</td><td>' +
    esc((r.versions || []).join(',')) + '</td>' + cols.map((x) => '<td class="' + x + '">' + fmt(r[x] || 0) + '</td>').join('') +
    '<td>' + esc(Object.entries(r.problems || {}).map(([k, v]) => k + ' ' + v).join(', ')) + '</td></tr>').join('');
  $('table').tFoot.innerHTML = b.deadLetters && b.deadLetters.truncated
    ? '<tr><td colspan="12">dead letters: the read stopped at its bound (truncated)</td></tr>' : '';
}

function esc(t) {
  return String(t).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

function syncControls(s) {
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.view === s.view);
  for (const e of document.querySelectorAll('.traffic-only')) e.hidden = s.view !== 'traffic';
  for (const e of document.querySelectorAll('.sankey-only')) e.hidden = s.view !== 'sankey';
  for (const e of document.querySelectorAll('.exporters-only')) e.hidden = s.view !== 'exporters';
  for (const e of document.querySelectorAll('.not-exporters')) e.hidden = s.view === 'exporters';
  $('range').value = s.range;
  $('custom-range').hidden = s.range !== 'custom';
  $('from').value = s.from || '';
  $('to').value = s.to || '';
  $('dimension').value = s.dimension;
  const dims = (s.dimensions || '').split(',');
  $('sankey-1').value = dims[0] || '';
  $('sankey-2').value = dims[1] || '';
  $('sankey-3').value = dims[2] || '';
  $('metric').value = s.metric;
  $('limit').value = s.limit;
  $('resolution').value = s.resolution;
  $('counter').value = s.counter;
  if (document.activeElement !== $('filter')) $('filter').value = s.filter || '';
}

function readControls() {
  const s = state();
  s.range = $('range').value;
  s.from = $('from').value;
  s.to = $('to').value;
  s.dimension = $('dimension').value;
  s.dimensions = [$('sankey-1').value, $('sankey-2').value, $('sankey-3').value].filter((x) => x).join(',');
  s.metric = $('metric').value;
  s.limit = $('limit').value;
  s.resolution = $('resolution').value;
  s.counter = $('counter').value;
  s.filter = $('filter').value.trim();
  return s;
}

async function init() {
  chart = echarts.init($('chart'));
  window.addEventListener('resize', () => chart.resize());
  fields = await (await fetch('/api/fields')).json();
  const opts = fields.dimensions.map((d) => '<option value="' + esc(d.name) + '">' + esc(d.name) + ' — ' + esc(d.label) + '</option>').join('');
  $('dimension').innerHTML = opts;
  $('sankey-1').innerHTML = opts;
  $('sankey-2').innerHTML = opts;
  $('sankey-3').innerHTML = '<option value="">(none)</option>' + opts;
  for (const r of fields.limits.resolutions) $('resolution').insertAdjacentHTML('beforeend', '<option value="' + esc(r) + '">' + esc(r) + '</option>');
  for (const b of document.querySelectorAll('#tabs button')) {
    b.addEventListener('click', () => { const s = readControls(); s.view = b.dataset.view; setState(s); load(); });
  }
  for (const id of ['range', 'dimension', 'sankey-1', 'sankey-2', 'sankey-3', 'metric', 'limit', 'resolution', 'counter']) {
    $(id).addEventListener('change', () => {
      const s = readControls();
      if (id === 'range' && s.range === 'custom') { syncControls(s); return; }
      setState(s); load();
    });
  }
  $('filter-form').addEventListener('submit', (e) => { e.preventDefault(); setState(readControls()); load(); });
  window.addEventListener('popstate', load);
  load();
}

document.addEventListener('DOMContentLoaded', init);
