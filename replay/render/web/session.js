(() => {
  "use strict";
  const main = document.getElementById("transcript");
  if (!main) return;
  const byId = (id) => document.getElementById(id);
  const search = byId("search");
  const count = byId("search-count");
  const errorsOnly = byId("errors-only");
  const logEvents = byId("log-events");
  const toolFilter = byId("tool-filter");
  const help = byId("help");
  const fill = (template, values) => template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  let items = null;
  let texts = null;
  const all = () => {
    if (items === null) {
      items = Array.from(main.querySelectorAll(".ev, ul.findings.at"));
      texts = new Array(items.length);
    }
    return items;
  };
  const textOf = (i) => {
    if (texts[i] === undefined) texts[i] = all()[i].textContent.toLowerCase();
    return texts[i];
  };
  const isFindings = (el) => el.tagName === "UL";

  // -- filters: log events, errors only, one tool ----------------------------------------
  const applyFilters = () => {
    const errs = errorsOnly.checked;
    const logs = logEvents.checked;
    const tool = toolFilter.value;
    for (const el of all()) {
      if (isFindings(el)) continue;
      let show = true;
      const head = el.classList.contains("turnHead");
      if (!logs && el.classList.contains("log")) show = false;
      if (tool && !head && !(el.classList.contains("tool") && el.dataset.tool === tool)) show = false;
      if (errs && !head) {
        const before = el.previousElementSibling;
        const flagged = el.dataset.error === "true" ||
          (before !== null && before.tagName === "UL" && before.dataset.worst === "error");
        if (!flagged) show = false;
      }
      el.hidden = !show;
    }
    for (const el of all()) {
      if (!isFindings(el)) continue;
      const next = el.nextElementSibling;
      el.hidden = (next !== null && next.hidden) || (errs && el.dataset.worst !== "error");
    }
    runSearch();
  };
  const resetFilters = () => {
    if (!errorsOnly.checked && logEvents.checked && !toolFilter.value) return;
    errorsOnly.checked = false;
    logEvents.checked = true;
    toolFilter.value = "";
    applyFilters();
  };
  errorsOnly.addEventListener("change", applyFilters);
  logEvents.addEventListener("change", applyFilters);
  toolFilter.addEventListener("change", applyFilters);
  byId("expand-all").addEventListener("click", () => main.querySelectorAll("details").forEach((d) => { d.open = true; }));
  byId("collapse-all").addEventListener("click", () => main.querySelectorAll("details").forEach((d) => { d.open = false; }));

  // -- showing an element: its collapsed parents opened ----------------------------------
  const reveal = (el, inside) => {
    for (let d = el.parentElement && el.parentElement.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) {
      d.open = true;
    }
    if (inside && el.tagName === "DETAILS") el.open = true;
    el.scrollIntoView({ block: "center" });
  };

  // -- search over every event, collapsed content included ------------------------------
  let matches = [];
  let current = -1;
  let query = "";
  const highlight = (el) => {
    if (!window.CSS || !CSS.highlights || typeof Highlight === "undefined") return;
    const ranges = [];
    if (el !== null && query) {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null && ranges.length < 200; node = walker.nextNode()) {
        const lower = node.data.toLowerCase();
        if (lower.length !== node.data.length) continue;
        for (let i = lower.indexOf(query); i >= 0 && ranges.length < 200; i = lower.indexOf(query, i + query.length)) {
          const range = new Range();
          range.setStart(node, i);
          range.setEnd(node, i + query.length);
          ranges.push(range);
        }
      }
    }
    CSS.highlights.set("search", new Highlight(...ranges));
  };
  const go = (k) => {
    if (!matches.length) return;
    if (current >= 0) matches[current].classList.remove("current");
    current = ((k % matches.length) + matches.length) % matches.length;
    const el = matches[current];
    el.classList.add("current");
    const summary = el.tagName === "DETAILS" ? el.querySelector("summary") : null;
    reveal(el, summary === null || !summary.textContent.toLowerCase().includes(query));
    highlight(el);
    count.textContent = fill(count.dataset.count, { index: current + 1, total: matches.length });
  };
  const runSearch = () => {
    query = search.value.trim().toLowerCase();
    for (const el of matches) el.classList.remove("hit", "current");
    matches = [];
    current = -1;
    if (query) {
      all().forEach((el, i) => {
        if (!el.hidden && textOf(i).includes(query)) {
          matches.push(el);
          el.classList.add("hit");
        }
      });
    }
    if (matches.length) {
      go(0);
    } else {
      highlight(null);
      count.textContent = query ? count.dataset.none : "";
    }
  };
  let timer = 0;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(runSearch, 120);
  });
  byId("search-next").addEventListener("click", () => go(current + 1));
  byId("search-prev").addEventListener("click", () => go(current - 1));

  // -- turns: j / k ----------------------------------------------------------------------
  const turn = (step) => {
    const heads = Array.from(main.querySelectorAll("h2.turnHead")).filter((h) => !h.hidden);
    if (!heads.length) return;
    // where a head stands once scrolled to (below the sticky toolbar: its scroll margin)
    const top = parseFloat(getComputedStyle(heads[0]).scrollMarginTop) || 0;
    let target;
    if (step > 0) target = heads.find((h) => h.getBoundingClientRect().top > top + 4) || heads[heads.length - 1];
    else target = heads.slice().reverse().find((h) => h.getBoundingClientRect().top < top - 4) || heads[0];
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  };

  // -- the help ----------------------------------------------------------------------------
  const openHelp = () => {
    if (!help.open) help.showModal();
  };
  byId("help-open").addEventListener("click", openHelp);

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    const typing = t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA");
    if (typing) {
      if (t === search && e.key === "Enter") {
        e.preventDefault();
        if (current < 0) runSearch();
        else go(current + (e.shiftKey ? -1 : 1));
      } else if (e.key === "Escape") {
        t.blur();
      }
      return;
    }
    if (help.open) return;
    if (e.key === "/") {
      e.preventDefault();
      search.focus();
      search.select();
    } else if (e.key === "j" || e.key === "k") {
      e.preventDefault();
      turn(e.key === "j" ? 1 : -1);
    } else if (e.key === "n" || e.key === "N") {
      go(current + (e.key === "n" ? 1 : -1));
    } else if (e.key === "?") {
      e.preventDefault();
      openHelp();
    }
  });

  // -- landing on #L25 / #seq-24 ---------------------------------------------------------
  const inRun = (kind, n) => {
    for (const run of main.querySelectorAll(".ev.stream")) {
      const [a, b] = run.dataset[kind].split(" ").map(Number);
      if (a <= n && n <= b) return run;
    }
    return null;
  };
  const land = () => {
    let id = location.hash.slice(1);
    try {
      id = decodeURIComponent(id);
    } catch (err) {
      return;
    }
    if (!id) return;
    let el = document.getElementById(id);
    if (el === null) {
      const m = /^(L|seq-)(-?\d+)$/.exec(id);
      if (m) el = inRun(m[1] === "L" ? "lines" : "seqs", Number(m[2]));
    }
    if (el === null || !main.contains(el)) return;
    const target = el.closest(".ev") || el;
    if (target.hidden) resetFilters();
    document.querySelectorAll(".landed").forEach((x) => x.classList.remove("landed"));
    target.classList.add("landed");
    reveal(el, el !== target);
  };
  window.addEventListener("hashchange", land);
  land();
})();
