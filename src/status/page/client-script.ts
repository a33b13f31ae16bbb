/**
 * The page's own script, as text (it runs in the browser, not in Node): draws the timelines
 * with uPlot from the JSON data element, ticks countdowns and ages, filters the decision log,
 * and reloads the page on its refresh URL, which keeps the `?code=` it was opened with.
 */
export const CLIENT_SCRIPT = String.raw`(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('drover-data').textContent);
  function duration(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) return s + 's';
    var m = Math.floor(s / 60);
    if (m < 60) return m + 'm' + String(s % 60).padStart(2, '0') + 's';
    var h = Math.floor(m / 60);
    return h + 'h' + String(m % 60).padStart(2, '0') + 'm';
  }
  data.charts.forEach(function (c) {
    var el = document.getElementById(c.id);
    if (!el) return;
    if (typeof uPlot === 'undefined') { el.textContent = 'timeline unavailable: uPlot is not loaded'; return; }
    var stepped = uPlot.paths && uPlot.paths.stepped ? uPlot.paths.stepped({ align: 1 }) : undefined;
    var hasLoad = c.series.some(function (s) { return s.scale === 'load'; });
    var opts = {
      width: Math.max(320, Math.min(960, el.clientWidth || 720)),
      height: 200,
      scales: { x: { time: true }, count: { auto: true, range: function (u, min, max) { return [0, Math.max(1, max + 1)]; } } },
      series: [{}].concat(c.series.map(function (s) {
        return { label: s.label, stroke: s.color, width: 2, dash: s.dash, scale: s.scale, paths: stepped, points: { show: true, size: 6, fill: s.color } };
      })),
      axes: [{}, { scale: 'count' }].concat(hasLoad ? [{ scale: 'load', side: 1, grid: { show: false } }] : []),
    };
    new uPlot(opts, c.data, el);
    var drawn = 0;
    for (var i = 1; i < c.data.length; i++) c.data[i].forEach(function (v) { if (v !== null) drawn++; });
    el.setAttribute('data-points', String(c.data[0].length));
    el.setAttribute('data-values', String(drawn));
  });
  function tick() {
    var now = Date.now();
    document.querySelectorAll('[data-until]').forEach(function (e) {
      var left = Number(e.getAttribute('data-until')) - now;
      e.textContent = left > 0 ? duration(left) + ' left' : 'over, the next pass may create again';
    });
    document.querySelectorAll('[data-since]').forEach(function (e) {
      e.textContent = duration(now - Number(e.getAttribute('data-since')));
    });
  }
  setInterval(tick, 1000);
  var filter = document.getElementById('object-filter');
  function refreshUrl() {
    var q = new URLSearchParams(data.refresh.query);
    if (filter && filter.value) q.set('object', filter.value); else q.delete('object');
    var s = q.toString();
    return location.pathname + (s ? '?' + s : '');
  }
  if (filter) filter.addEventListener('change', function () {
    document.querySelectorAll('.decisions tr[data-object]').forEach(function (row) {
      row.hidden = !!filter.value && row.getAttribute('data-object') !== filter.value;
    });
    history.replaceState(null, '', refreshUrl());
  });
  if (data.refresh.seconds > 0) setTimeout(function () { location.replace(refreshUrl()); }, data.refresh.seconds * 1000);
})();`;
