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
  var MARKS = { failed: '#d62728', deleted: '#9467bd', adopted: '#7f7f7f', safety: '#e6550d', wake: '#2ca02c', active: '#17becf', other: '#555555' };
  function rgba(hex, alpha) {
    if (alpha === undefined) return hex;
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + alpha + ')';
  }
  function number(v) { return v === null || v === undefined ? '' : String(Math.round(v * 100) / 100); }
  function clock(s) { return new Date(s * 1000).toISOString().slice(11, 19); }
  // Events as marks: a dashed line at the event's time and its kind above the plot.
  function eventMarks(events) {
    return { hooks: { draw: function (u) {
      var ctx = u.ctx;
      ctx.save();
      events.forEach(function (e, i) {
        var x = Math.round(u.valToPos(e.at, 'x', true));
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        ctx.strokeStyle = MARKS[e.kind] || MARKS.other;
        ctx.fillStyle = ctx.strokeStyle;
        ctx.lineWidth = 1.5 * devicePixelRatio;
        ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
        ctx.beginPath(); ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
        ctx.setLineDash([]);
        var y = u.bbox.top + (i % 3) * 12 * devicePixelRatio;
        ctx.beginPath(); ctx.moveTo(x - 5 * devicePixelRatio, y); ctx.lineTo(x + 5 * devicePixelRatio, y); ctx.lineTo(x, y + 8 * devicePixelRatio); ctx.fill();
        ctx.font = (10 * devicePixelRatio) + 'px system-ui, sans-serif';
        ctx.fillText(e.label, x + 6 * devicePixelRatio, y + 8 * devicePixelRatio);
      });
      ctx.restore();
    } } };
  }
  window.droverCharts = {};
  data.charts.forEach(function (c) {
    var el = document.getElementById(c.id);
    if (!el) return;
    if (typeof uPlot === 'undefined') { el.textContent = 'timeline unavailable: uPlot is not loaded'; return; }
    var stepped = uPlot.paths && uPlot.paths.stepped ? uPlot.paths.stepped({ align: 1 }) : undefined;
    var hasLoad = c.series.some(function (s) { return s.scale === 'load'; });
    var last = c.data[0].length ? c.data[0][c.data[0].length - 1] : null;
    var width = function () { return Math.max(200, el.clientWidth || 320); };
    var opts = {
      width: width(),
      height: 220,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'); },
      scales: { x: { time: true }, count: { auto: true, range: function (u, min, max) { return [0, Math.max(1, max + 1)]; } }, load: { auto: true, range: function (u, min, max) { return [0, Math.max(1, max * 1.1)]; } } },
      // Without a hovered point, the legend shows each series' value now.
      series: [{ label: 'time', value: function (u, v, si, idx) { return idx == null ? (last === null ? '' : clock(last) + ' (now)') : clock(v); } }].concat(c.series.map(function (s) {
        return {
          label: s.label, stroke: rgba(s.color, s.alpha), width: s.width, dash: s.dash, scale: s.scale, paths: stepped,
          fill: s.scale === 'load' ? rgba(s.color, 0.1) : undefined,
          points: { show: true, size: Math.max(4, s.width + 2), fill: rgba(s.color, s.alpha) },
          value: function (u, v, si, idx) { return number(idx == null ? s.latest : v); },
        };
      })),
      axes: [{ label: c.axes.x, labelSize: 20, space: 76, values: function (u, splits) { return splits.map(function (v) { return v == null ? '' : clock(v); }); } }, { scale: 'count', label: c.axes.count, labelSize: 20 }].concat(hasLoad ? [{ scale: 'load', side: 1, label: c.axes.load, labelSize: 20, grid: { show: false } }] : []),
      plugins: [eventMarks(c.events)],
    };
    var u = new uPlot(opts, c.data, el);
    window.droverCharts[c.id] = { data: c.data, series: c.series.map(function (s) { return s.label; }), events: c.events };
    window.addEventListener('resize', function () { u.setSize({ width: width(), height: 220 }); });
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
