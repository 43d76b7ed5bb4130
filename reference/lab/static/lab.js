"use strict";
(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  const SVG = "http://www.w3.org/2000/svg";
  const COLUMNS = $$("#domains thead th[data-term]").map((th) => ({ head: th.textContent, term: th.dataset.term }));
  const BAD = new Set(["unsafe_escape", "duplicate_effect", "unverifiable_release"]);
  const pct = (r) => (100 * r).toFixed(1) + "%";

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // --- controls and presets ---
  const boxes = $$("input[name=control]");
  const checked = () => boxes.filter((b) => b.checked).map((b) => b.value);
  function matchingPreset() {
    const now = checked().join(",");
    const p = $$("button.preset").find((b) => b.dataset.controls === now);
    return p ? p.dataset.profile : "";
  }
  function refreshPresets() {
    const m = matchingPreset();
    for (const b of $$("button.preset")) b.setAttribute("aria-pressed", String(b.dataset.profile === m));
  }
  for (const b of $$("button.preset")) {
    b.addEventListener("click", () => {
      const want = new Set(b.dataset.controls ? b.dataset.controls.split(",") : []);
      for (const box of boxes) box.checked = want.has(box.value);
      refreshPresets();
    });
  }
  for (const box of boxes) box.addEventListener("change", refreshPresets);
  refreshPresets();

  // --- the assay ---
  function numberField(id) {
    const v = $("#" + id).value.trim();
    const n = Number(v);
    return v !== "" && Number.isFinite(n) ? n : v;
  }
  function assayRequest() {
    const req = {};
    const p = matchingPreset();
    if (p) req.profile = p;
    else req.controls = checked();
    const f = $("#fault").value;
    const slash = f.indexOf("/");
    if (slash >= 0) {
      req.fault = f.slice(0, slash);
      req.mode = f.slice(slash + 1);
    } else {
      req.fault = f;
    }
    req.trials = numberField("trials");
    req.seed = numberField("seed");
    if ($("#compat").checked) req.compat = "paper188";
    return req;
  }

  async function post(path, body) {
    const resp = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: body });
    let data;
    try {
      data = await resp.json();
    } catch (e) {
      throw new Error("HTTP " + resp.status + ": the answer is not JSON");
    }
    if (!resp.ok) throw new Error(data.error || "HTTP " + resp.status);
    return data;
  }

  const status = $("#status");
  let runs = 0;
  $("#setup").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const btn = $("#run");
    btn.disabled = true;
    status.className = "";
    status.textContent = "Running…";
    try {
      const data = await post("/api/assay", JSON.stringify(assayRequest()));
      render(data);
      await refreshCoverage();
      runs++;
      const a = data.assay;
      status.textContent = "Run " + runs + ": " + a.overall.trials + " trials, " + a.profile + ", seed " + a.seed + ".";
      status.dataset.run = String(runs);
      delete status.dataset.error;
    } catch (e) {
      status.className = "error";
      status.textContent = e.message;
      status.dataset.error = e.message;
    } finally {
      btn.disabled = false;
    }
  });

  function render(data) {
    const a = data.assay;
    for (const m of $$(".meter")) {
      const r = a.overall[m.dataset.term];
      const v = $(".value", m);
      v.textContent = pct(r);
      v.dataset.rate = String(r);
      $(".fill", m).setAttribute("width", String(100 * r));
      m.classList.toggle("nonzero", r > 0);
    }
    const box = $("#assessment");
    const pass = a.reasons.length === 0;
    box.className = "assessment " + (pass ? "pass" : "block");
    $("#assessment-status").textContent = a.assessment;
    const ul = $("#reasons");
    ul.replaceChildren(...a.reasons.map((r) => el("li", {}, r)));
    $("#command code").textContent = data.command;

    const tbody = $("#domains tbody");
    const rows = a.fault_domains.map((d) => row(d, a.by_domain[d], ""));
    rows.push(row("overall", a.overall, "overall"));
    tbody.replaceChildren(...rows);
    $("#charts").replaceChildren(...a.fault_domains.map((d) => chart(d, a.by_domain[d])));

    for (const p of $$("#interpretation p[data-kind]")) {
      p.classList.toggle("current", p.dataset.kind === (pass ? "positive" : "negative") || p.dataset.kind === "cannot_establish");
    }
    renderEnvelope(data.envelope);
  }

  // --- the release envelope ---
  function renderEnvelope(pl) {
    $("#envelope").dataset.region = pl.region;
    for (const g of $$("#envelope-figure g.region")) g.classList.toggle("current", g.dataset.region === pl.region);
    const p = $("#envelope-region");
    p.className = "placed";
    p.replaceChildren(
      el("strong", { class: "region", "data-region": pl.region }, pl.region),
      document.createTextNode(": " + pl.decision + ". Placed from this run's " + pl.trials + " trials (" + pl.profile + ")" +
        (pl.reasons.length ? "; the reasons:" : ".")),
    );
    $("#envelope-reasons").replaceChildren(...pl.reasons.map((r) => el("li", {}, r)));
    $("#envelope-checks tbody").replaceChildren(...pl.checks.map((c) => {
      const tr = el("tr", { "data-held": String(c.held) });
      tr.append(el("td", {}, c.name), el("td", {}, c.hard ? "hard invariant" : "floor"),
        el("td", { class: c.held ? "held" : "violated" }, c.held ? "held" : (c.hard ? "FAILED" : "MISSED")), el("td", {}, c.reason));
      return tr;
    }));
  }

  // --- the session's coverage ---
  const heat = $("#heatmaps");
  const FILL = { held: heat.dataset.fillHeld, violated: heat.dataset.fillViolated, partial: heat.dataset.fillPartial, none: heat.dataset.fillNone, empty: heat.dataset.fillEmpty };
  const covErr = el("p", { class: "error", role: "alert", hidden: "" });
  $("#coverage-headline").after(covErr);

  async function refreshCoverage() {
    try {
      const resp = await fetch("/api/coverage");
      const data = await resp.json();
      if (!resp.ok) throw new Error(data.error || "HTTP " + resp.status);
      renderCoverage(data);
      covErr.hidden = true;
    } catch (e) {
      covErr.textContent = "coverage: " + e.message;
      covErr.hidden = false;
    }
  }

  const plural = (n, one, many) => n + " " + (n === 1 ? one : many);

  function renderCoverage(r) {
    const s = r.summary;
    const h = $("#coverage-headline");
    h.dataset.visited = String(s.visited);
    h.dataset.reachable = String(s.reachable);
    h.dataset.runs = String(s.runs);
    h.textContent = "Coverage: " + s.visited + " of " + s.reachable + " reachable keys visited (" + pct(s.ratio) + ")";
    const lines = [
      s.keys + " keys in all: " + s.reachable + " reachable by the catalogue, " + s.unreachable + " unreachable",
      "visited keys: " + s.violated_keys + " violated an invariant, " + s.held_keys + " held; unvisited reachable keys: " +
        s.scheduled_not_reached_keys + " scheduled but not reached, " + s.never_tried_keys + " never tried",
      "runs " + s.runs + " (" + s.not_adjudicated + " not adjudicated); fault visits " + s.visits + ", scheduled not reached " +
        s.faults_not_reached + ", reached not fired " + s.faults_not_fired + "; counterexamples " + s.counterexamples,
      "pairwise (t = 2): " + s.pairs_covered + " of " + s.pairs_reachable + " reachable value pairs covered (" + pct(s.pair_ratio) + ")",
    ];
    $("#coverage-counts").replaceChildren(...lines.map((l) => el("li", {}, l)));
    heat.replaceChildren(...r.heatmaps.map(heatmap));
    $("#unvisited-count").textContent = String(r.unvisited.length);
    const unv = r.unvisited.map((k) => {
      const li = el("li", { "data-key": k.key, "data-status": k.status });
      li.append(el("code", {}, k.key), document.createTextNode(" (" + k.status.replaceAll("_", " ") + "): " + k.reason));
      return li;
    });
    if (unv.length === 0) unv.push(el("li", {}, "none: every reachable key was visited"));
    $("#unvisited").replaceChildren(...unv);
    const cxs = [];
    for (const k of r.keys) for (const c of k.counterexamples) cxs.push(counterexample(k.key, c));
    for (const c of r.unattributed_counterexamples) cxs.push(counterexample("(no fault reached it)", c));
    if (cxs.length === 0) cxs.push(el("li", {}, "none: every invariant held in every run of the session"));
    $("#counterexamples").replaceChildren(...cxs);
  }

  function counterexample(key, c) {
    const li = el("li", { "data-key": key, "data-invariant": c.invariant });
    li.append(el("code", {}, key), document.createTextNode(": " + c.invariant + " violated in " + plural(c.count, "run", "runs") +
      "; first false after seq " + c.first_seq + " (" + c.event + "): " + c.detail + " "));
    const b = el("button", { type: "button", class: "small" }, "Replay in the viewer");
    b.addEventListener("click", () => {
      text.value = JSON.stringify(c.schedule.schedule, null, 2);
      replay();
      $("#viewer").scrollIntoView();
    });
    li.append(b);
    return li;
  }

  // heatmap lays a coverage heatmap out as the coverage package's HTML
  // report does: a cell per pair of values, visited/reachable keys in it.
  function heatmap(hm) {
    const cw = 64, ch = 30, left = 130, top = 110;
    const w = left + cw * hm.col_values.length + 100, hgt = top + ch * hm.row_values.length + 10;
    const title = hm.rows + " × " + hm.cols;
    const fig = el("figure", { class: "heatmap", "data-rows": hm.rows, "data-cols": hm.cols });
    fig.append(el("figcaption", {}, title));
    const svg = svgEl("svg", { viewBox: "0 0 " + w + " " + hgt, width: w, height: hgt, role: "img", "aria-label": title });
    hm.col_values.forEach((v, j) => {
      const x = left + j * cw + cw / 2, y = top - 8;
      svg.append(svgEl("text", { x: x, y: y, transform: "rotate(-40 " + x + " " + y + ")" }, v));
    });
    hm.row_values.forEach((rv, i) => {
      svg.append(svgEl("text", { x: left - 8, y: top + i * ch + ch / 2 + 4, "text-anchor": "end" }, rv));
      hm.cells[i].forEach((c, j) => {
        const x = left + j * cw, y = top + i * ch;
        const where = hm.rows + " " + rv + ", " + hm.cols + " " + hm.col_values[j];
        let fill, stroke = "#adb5bd", label, tip;
        if (c.reachable === 0) {
          fill = FILL.empty;
          label = "·";
          tip = where + ": unreachable: " + c.reason;
        } else {
          if (c.violated > 0) [fill, stroke] = [FILL.violated, "#c92a2a"];
          else if (c.visited === c.reachable) fill = FILL.held;
          else if (c.visited > 0) fill = FILL.partial;
          else [fill, stroke] = [FILL.none, "#d9480f"];
          label = c.visited + "/" + c.reachable + (c.violated > 0 ? " ✗" + c.violated : "");
          tip = where + ": " + c.visited + " of " + c.reachable + " reachable keys visited, " + c.violated + " violated";
        }
        const g = svgEl("g", { "data-row": rv, "data-col": hm.col_values[j], "data-visited": c.visited, "data-reachable": c.reachable });
        g.append(svgEl("title", {}, tip),
          svgEl("rect", { class: "cell", x: x, y: y, width: cw, height: ch, fill: fill, stroke: stroke }),
          svgEl("text", { x: x + cw / 2, y: y + ch / 2 + 4, "text-anchor": "middle" }, label));
        svg.append(g);
      });
    });
    fig.append(svg);
    return fig;
  }

  $("#coverage-reset").addEventListener("click", async () => {
    try {
      const resp = await fetch("/api/coverage/reset", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      const data = await resp.json();
      if (!resp.ok) throw new Error(data.error || "HTTP " + resp.status);
      renderCoverage(data);
      covErr.hidden = true;
    } catch (e) {
      covErr.textContent = "coverage: " + e.message;
      covErr.hidden = false;
    }
  });
  refreshCoverage();

  function row(name, rates, cls) {
    const tr = el("tr", cls ? { class: cls } : {});
    tr.append(el("td", {}, name), el("td", { "data-domain": name, "data-term": "trials" }, String(rates.trials)));
    for (const c of COLUMNS) {
      const r = rates[c.term];
      const td = el("td", { "data-domain": name, "data-term": c.term, "data-rate": String(r) }, pct(r));
      if (BAD.has(c.term) && r > 0) td.className = "hot";
      tr.append(td);
    }
    return tr;
  }

  // chart draws one domain's rates as horizontal bars in inline SVG.
  function chart(name, rates) {
    const fig = el("figure", { class: "chart", "data-domain": name });
    fig.append(el("h3", {}, name + " (n=" + rates.trials + ")"));
    const rowH = 11, left = 44, width = 120, h = COLUMNS.length * rowH + 4;
    const svg = svgEl("svg", { viewBox: "0 0 200 " + h, role: "img", "aria-label": name + " rates" });
    svg.append(svgEl("line", { class: "axis", x1: left, y1: 0, x2: left, y2: h }));
    COLUMNS.forEach((c, i) => {
      const y = 2 + i * rowH;
      const r = rates[c.term];
      svg.append(svgEl("text", { x: 0, y: y + 7.5 }, c.head));
      const bar = svgEl("rect", { class: "bar-" + c.term, x: left, y: y, width: Math.max(0, width * r), height: rowH - 3, "data-term": c.term });
      bar.append(svgEl("title", {}, c.head + " " + pct(r)));
      svg.append(bar);
      svg.append(svgEl("text", { x: left + width * r + 3, y: y + 7.5 }, pct(r)));
    });
    fig.append(svg);
    return fig;
  }

  // --- the timeline viewer ---
  const text = $("#schedule");
  const rerr = $("#replay-error");
  $("#load-example").addEventListener("click", (ev) => {
    text.value = ev.currentTarget.dataset.example;
  });
  $("#schedule-file").addEventListener("change", (ev) => {
    const f = ev.target.files[0];
    if (!f) return;
    f.text().then((t) => {
      text.value = t;
      replay();
    });
  });
  $("#replay").addEventListener("click", () => replay());

  async function replay() {
    rerr.hidden = true;
    try {
      const data = await post("/api/replay", text.value);
      renderReplay(data);
      await refreshCoverage();
    } catch (e) {
      $("#replay-result").hidden = true;
      rerr.textContent = e.message;
      rerr.hidden = false;
    }
  }

  function renderReplay(data) {
    const res = data.result;
    const sum = $("#replay-summary");
    sum.replaceChildren(
      document.createTextNode("run " + res.run_id + ", config " + JSON.stringify(res.schedule.config) + ": claim " + res.claim_verdict + ", run "),
      el("span", { class: "verdict-" + res.run_verdict }, res.run_verdict),
      document.createTextNode(data.held ? " (every invariant held)" : " (an invariant was violated)"),
    );
    const faults = res.faults.map((f) => {
      let s;
      let untested = false;
      if (!f.reached) {
        s = "NOT REACHED: its event never occurred; this fault was not tested";
        untested = true;
      } else if (f.fired === 0) {
        s = "reached, did not fire: its disturbance had nothing to act on; not tested";
        untested = true;
      } else {
        s = "reached, fired " + f.fired + " (seq " + f.fired_at_seq + "), oracle " + f.oracle;
        if (f.observed_by.length) s += ", observed by " + f.observed_by.join(", ");
        if (f.detected) s += ", detected by the system";
      }
      return el("li", untested ? { class: "untested" } : {}, f.id + " " + f.kind + " at " + f.event + (f.tool ? "(" + f.tool + ")" : "") + "#" + f.ordinal + ": " + s);
    });
    if (faults.length === 0) faults.push(el("li", {}, "(none scheduled)"));
    $("#replay-faults").replaceChildren(...faults);
    const cov = data.coverage;
    const parts = cov.keys.map((k) => k.key + (k.visited ? " visited" : " not visited (" + k.reason + ")"));
    $("#replay-coverage").textContent = "Session coverage: " +
      (cov.recorded ? (parts.length ? parts.join("; ") : "no key") + (cov.reason ? "; " + cov.reason : "") : cov.reason) + ".";
    const broke = new Set();
    $("#replay-invariants tbody").replaceChildren(...res.invariants.map((i) => {
      const tr = el("tr", { "data-invariant": i.name });
      tr.append(el("td", {}, i.name), el("td", {}, i.oracle));
      if (i.held) {
        tr.append(el("td", { class: "held" }, "held"), el("td"), el("td"), el("td"));
      } else {
        broke.add(i.first_seq);
        tr.append(el("td", { class: "violated" }, "VIOLATED"), el("td", {}, "seq " + i.first_seq + " (" + i.event + ")"), el("td", {}, i.fault_id || ""), el("td", {}, i.detail || ""));
      }
      return tr;
    }));
    const t = res.terms;
    const yes = (b) => (b ? "yes" : "no");
    $("#replay-terms").textContent =
      "detected " + yes(t.detected) + ", contained " + yes(t.contained) + ", recovered " + yes(t.recovered) +
      ", verified " + yes(t.verified) + ", useful_service " + yes(t.useful_service) + "; unsafe_escape " + yes(t.unsafe_escape) +
      ", duplicate_effect " + yes(t.duplicate_effect) + ", unverifiable_release " + yes(t.unverifiable_release) +
      ", service_loss " + yes(t.service_loss) + ", effects " + t.effects;
    $("#replay-timeline tbody").replaceChildren(...res.timeline.map((e) => {
      const cls = [];
      if (e.fault_id) cls.push("fired");
      if (broke.has(e.seq)) cls.push("broke");
      const tr = el("tr", cls.length ? { class: cls.join(" "), "data-seq": e.seq } : { "data-seq": e.seq });
      for (const v of [e.seq, e.t_ms, e.worker, e.event, e.ordinal > 0 ? e.ordinal : "", e.state_before + " → " + e.state_after,
        e.outcome || "", e.fault_id || "", e.attempt, e.checkpoint_seq, e.retry_remaining, e.deadline_remaining_ms, e.detail || ""]) {
        tr.append(el("td", {}, String(v)));
      }
      return tr;
    }));
    $("#replay-result").hidden = false;
  }
})();
