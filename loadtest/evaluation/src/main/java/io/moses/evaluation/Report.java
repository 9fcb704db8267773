package io.moses.evaluation;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One run's report directory: closed.csv and open.csv (the raw steps), summary.txt (what the
 * bench printed: medians, saturation, ratios), machine.txt, versions.txt, commands.txt, and
 * index.html with the plots, drawn by Chart.js 4.6.1 (vendored, MIT, copied next to the page so
 * it opens from disk with no network).
 */
final class Report {
    static final String CHART_JS = "chart-4.6.1.umd.min.js";
    static final String CHART_LICENSE = "chart-4.6.1.LICENSE.md";

    private Report() {}

    static String num(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.2f", v);
    }

    static void write(Path dir, List<ClosedStep> closed, List<OpenStep> open, String summary, String machine, String versions,
                      String commands, String title) throws IOException {
        Files.createDirectories(dir);
        StringBuilder c = new StringBuilder(ClosedStep.CSV_HEADER).append('\n');
        closed.forEach(s -> c.append(s.csv()).append('\n'));
        Files.writeString(dir.resolve("closed.csv"), c);
        StringBuilder o = new StringBuilder(OpenStep.CSV_HEADER).append('\n');
        open.forEach(s -> o.append(s.csv()).append('\n'));
        Files.writeString(dir.resolve("open.csv"), o);
        Files.writeString(dir.resolve("summary.txt"), summary);
        Files.writeString(dir.resolve("machine.txt"), machine);
        Files.writeString(dir.resolve("versions.txt"), versions);
        Files.writeString(dir.resolve("commands.txt"), commands);
        for (String f : new String[]{CHART_JS, CHART_LICENSE})
            try (InputStream in = Report.class.getResourceAsStream("vendor/" + f)) {
                Files.copy(in, dir.resolve(f), StandardCopyOption.REPLACE_EXISTING);
            }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("closed", closed);
        data.put("open", open);
        String json = new ObjectMapper().writeValueAsString(data).replace("</", "<\\/");
        Files.writeString(dir.resolve("index.html"), html(title, json, summary, machine, versions, commands));
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String html(String title, String json, String summary, String machine, String versions, String commands) {
        return """
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>%1$s</title>
                <script src="%2$s"></script>
                <style>
                 body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}
                 .charts{display:grid;grid-template-columns:1fr 1fr;gap:1.5em}
                 .chart{position:relative;height:420px}
                 pre{background:#f5f5f5;padding:1em;overflow-x:auto;font-size:12px}
                 table{border-collapse:collapse;font-size:13px} td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
                </style></head><body>
                <h1>%1$s</h1>
                <p>Closed model (The Grinder 3.11: workers post back to back, think time 0) and open model (httperf 0.9:
                constant arrival rate, one POST per connection) against the trip planner through a broker with static
                binding, one with adaptive binding (or, with --replicas, clusters of N replicas behind HAProxy over
                MariaDB: lines binding@N, lighter for more replicas), and one stub called directly (the direct-call limit: its
                throughput divided by the stub calls per composite request). Raw data: <a href="closed.csv">closed.csv</a>,
                <a href="open.csv">open.csv</a>; <a href="commands.txt">commands</a>, <a href="machine.txt">machine</a>,
                <a href="versions.txt">versions</a>. Open-model points drawn as crosses are beyond saturation. httperf sends as
                the seed's six users, each session with its user's Authorization header (set by a small HAProxy in front of
                every target: raw/httperf-*/user-header-proxy.cfg).</p>
                <div class="charts">
                 <div class="chart"><canvas id="tput"></canvas></div>
                 <div class="chart"><canvas id="crt"></canvas></div>
                 <div class="chart"><canvas id="ort"></canvas></div>
                 <div class="chart"><canvas id="orate"></canvas></div>
                </div>
                <h2>Summary</h2><pre>%3$s</pre>
                <h2>Machine</h2><pre>%4$s</pre>
                <h2>Versions</h2><pre>%5$s</pre>
                <h2>Commands</h2><pre>%6$s</pre>
                <script>
                const data = %7$s;
                // a line per target: static, adaptive, direct, or binding@N (N replicas behind HAProxy, lighter per replica)
                const base = {static:[31,119,180], adaptive:[214,39,40], direct:[44,160,44]};
                const label = {static:'static binding', adaptive:'adaptive binding', direct:'direct-call limit'};
                const replicasOf = t => t.includes('@') ? Number(t.split('@')[1]) : 0;
                const colors = new Proxy({}, {get: (_, t) => {
                  const c = base[String(t).split('@')[0]] || [120,120,120], k = Math.max(0, replicasOf(String(t)) - 1) * 0.35;
                  return 'rgb(' + c.map(v => Math.round(v + (255 - v) * Math.min(k, 0.7))).join(',') + ')'; }});
                const names = new Proxy({}, {get: (_, t) => { t = String(t); const n = replicasOf(t);
                  return (label[t.split('@')[0]] || t) + (n ? ', ' + n + (n === 1 ? ' replica' : ' replicas') + ' (HAProxy)' : ''); }});
                const workers = [...new Set(data.closed.map(s => s.workers))];
                const targets = [...new Set(data.closed.map(s => s.target).concat(data.open.map(s => s.target)))];
                function line(label, color, points, dashed, styles) {
                  return {label, data: points, borderColor: color, backgroundColor: color, borderDash: dashed ? [6, 4] : [],
                          pointStyle: styles || 'circle', pointRadius: styles ? 5 : 3, tension: 0};
                }
                function chart(id, title, xTitle, yTitle, datasets, logX, logY) {
                  const log2 = {callback: v => Number.isInteger(Math.log2(v)) ? v : ''};
                  new Chart(document.getElementById(id), {type: 'line', data: {datasets},
                    options: {animation: false, maintainAspectRatio: false, parsing: false,
                      plugins: {title: {display: true, text: title}, legend: {labels: {boxWidth: 14, font: {size: 10}}}},
                      scales: {x: logX ? {type: 'logarithmic', title: {display: true, text: xTitle}, ticks: log2,
                                         afterBuildTicks: axis => { axis.ticks = workers.map(v => ({value: v})); }}
                                       : {type: 'linear', title: {display: true, text: xTitle}},
                               y: logY ? {type: 'logarithmic', title: {display: true, text: yTitle + ' (log scale)'}}
                                       : {beginAtZero: true, title: {display: true, text: yTitle}}}}});
                }
                const closed = t => data.closed.filter(s => s.target === t);
                const open = t => data.open.filter(s => s.target === t);
                const sat = t => open(t).map(s => s.saturated ? 'crossRot' : 'circle');
                chart('tput', 'Closed model: throughput against workers', 'workers', 'composite requests/s',
                  targets.map(t => line(names[t] || t, colors[t], closed(t).map(s => ({x: s.workers, y: s.composite})))), true);
                chart('crt', 'Closed model: response time against workers (solid mean, dashed p95)', 'workers', 'ms',
                  targets.filter(t => t !== 'direct').flatMap(t => [
                    line(names[t] + ' mean', colors[t], closed(t).map(s => ({x: s.workers, y: s.meanMs}))),
                    line(names[t] + ' p95', colors[t], closed(t).map(s => ({x: s.workers, y: s.p95Ms})), true)]), true, true);
                chart('ort', 'Open model: response time against arrival rate (solid mean, dashed p95)', 'composite requests/s offered', 'ms',
                  targets.flatMap(t => [
                    line(names[t] + ' mean', colors[t], open(t).map(s => ({x: s.rate, y: s.meanMs})), false, sat(t)),
                    line(names[t] + ' p95', colors[t], open(t).map(s => ({x: s.rate, y: s.p95Ms})), true, sat(t))]), false, true);
                chart('orate', 'Open model: replies against arrival rate', 'composite requests/s offered', 'composite replies/s (2xx)',
                  targets.map(t => line(names[t] || t, colors[t], open(t).map(s => ({x: s.rate, y: s.achievedRps / (s.offeredRps / s.rate)})), false, sat(t))));
                </script>
                </body></html>
                """.formatted(esc(title), CHART_JS, esc(summary), esc(machine), esc(versions), esc(commands), json);
    }
}
