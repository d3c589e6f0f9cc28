(() => {
  "use strict";
  const table = document.getElementById("sessions");
  if (!table) return;
  const byId = (id) => document.getElementById(id);
  const fill = (template, values) => template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
  const number = (n) => n.toLocaleString("en-US");
  const body = table.tBodies[0];
  const more = byId("more-rows");
  const rows = Array.from(body.rows);
  if (more) {
    rows.push(...Array.from(more.content.children));
    more.remove();
  }
  const note = byId("no-script");
  if (note) note.hidden = true;
  const heads = Array.from(table.tHead.rows[0].cells);
  const filter = byId("filter");
  const onlyErrors = byId("only-errors");
  const onlyWarnings = byId("only-warnings");
  const model = byId("model");
  const tool = byId("tool");
  const shownText = byId("shown");
  const pager = byId("pager");
  const position = byId("page-position");
  const prev = byId("page-prev");
  const next = byId("page-next");
  const everything = byId("page-all");
  const help = byId("help");
  const size = Number(table.dataset.page) || 200;
  const order = rows.map((row, i) => i);
  const keys = new Map();
  let searchText = null;
  let sorted = order.slice();
  let shown = sorted;
  let page = 0;
  let all = false;

  const keyOf = (col) => {
    if (!keys.has(col)) {
      const numeric = heads[col].dataset.type === "num";
      keys.set(col, rows.map((row) => {
        const cell = row.cells[col];
        const raw = cell.dataset.v !== undefined ? cell.dataset.v : cell.textContent;
        if (!numeric) return raw.toLowerCase();
        return raw === "" ? null : Number(raw);
      }));
    }
    return keys.get(col);
  };
  const sortBy = (col, direction) => {
    const k = keyOf(col);
    const sign = direction === "descending" ? -1 : 1;
    sorted = order.slice().sort((a, b) => {
      const x = k[a];
      const y = k[b];
      if (x === y) return a - b;
      if (x === null) return 1;  // empty cells last, whatever the direction
      if (y === null) return -1;
      return (x < y ? -1 : 1) * sign;
    });
    heads.forEach((th, i) => th.setAttribute("aria-sort", i === col ? direction : "none"));
    try {
      localStorage.setItem("replay-site-sort", JSON.stringify([heads[col].dataset.key, direction]));
    } catch (err) {
      // storage refused (a private window): the choice is not remembered
    }
    page = 0;
    apply();
  };
  const matches = (i) => {
    const row = rows[i];
    const q = filter.value.trim().toLowerCase();
    if (q) {
      if (searchText === null) {
        const text = (r) => {
          const path = r.querySelector("td.path");
          const title = r.querySelector("td.title .t");
          return (path ? path.dataset.v : "") + "\n" + (title ? title.title || title.textContent : "");
        };
        searchText = rows.map((r) => text(r).toLowerCase());
      }
      if (!searchText[i].includes(q)) return false;
    }
    const status = row.dataset.status;
    const errs = onlyErrors.checked;
    const warns = onlyWarnings.checked;
    if (errs || warns) {
      const bad = status === "errors" || status === "unreadable";
      if (!((errs && bad) || (warns && status === "warnings"))) return false;
    }
    if (model.value && !row.dataset.models.split("\n").includes(model.value)) return false;
    if (tool && tool.value && !row.dataset.tools.split("\n").includes(tool.value)) return false;
    return true;
  };
  const render = () => {
    const pages = Math.max(1, Math.ceil(shown.length / size));
    page = Math.max(0, Math.min(page, pages - 1));
    const first = all ? 0 : page * size;
    const last = all ? shown.length : Math.min(shown.length, first + size);
    body.replaceChildren(...shown.slice(first, last).map((i) => rows[i]));
    shownText.textContent = fill(shownText.dataset.template, { shown: number(shown.length), total: number(rows.length) });
    pager.hidden = shown.length <= size;
    position.textContent = fill(position.dataset.template, {
      first: shown.length ? number(first + 1) : 0, last: number(last), total: number(shown.length),
    });
    prev.disabled = all || page === 0;
    next.disabled = all || last >= shown.length;
    everything.disabled = all;
  };
  const apply = () => {
    shown = sorted.filter(matches);
    render();
  };
  heads.forEach((th, col) => {
    th.querySelector("button").addEventListener("click", () => {
      sortBy(col, th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending");
    });
  });
  let timer = 0;
  filter.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => { page = 0; apply(); }, 120);
  });
  for (const box of [onlyErrors, onlyWarnings, model, tool].filter(Boolean)) box.addEventListener("change", () => { page = 0; apply(); });
  prev.addEventListener("click", () => { page -= 1; render(); });
  next.addEventListener("click", () => { page += 1; render(); });
  everything.addEventListener("click", () => { all = true; render(); });
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT")) {
      if (e.key === "Escape") t.blur();
      return;
    }
    if (help.open) return;
    if (e.key === "/") {
      e.preventDefault();
      filter.focus();
    } else if (e.key === "?") {
      e.preventDefault();
      help.showModal();
    } else if (e.key === "[" && !prev.disabled) {
      page -= 1;
      render();
    } else if (e.key === "]" && !next.disabled) {
      page += 1;
      render();
    } else if (/^[1-9]$/.test(e.key) && Number(e.key) <= heads.length) {
      heads[Number(e.key) - 1].querySelector("button").click();
    }
  });
  byId("help-open").addEventListener("click", () => help.showModal());
  let remembered = null;
  try {
    remembered = JSON.parse(localStorage.getItem("replay-site-sort") || "null");
  } catch (err) {
    remembered = null;
  }
  // The rows come errors first (the status column, descending); a reader's own choice is kept.
  const col = Array.isArray(remembered) ? heads.findIndex((th) => th.dataset.key === remembered[0]) : -1;
  const direction = Array.isArray(remembered) && remembered[1] === "descending" ? "descending" : "ascending";
  if (col >= 0 && heads[col].getAttribute("aria-sort") !== direction) sortBy(col, direction);
  else apply();
})();
