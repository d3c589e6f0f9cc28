(() => {
  "use strict";
  const make = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const panel = document.querySelector("[data-testid=todo-panel] > button.header");
  if (panel) {
    panel.addEventListener("click", () => {
      const open = panel.getAttribute("aria-expanded") !== "true";
      panel.setAttribute("aria-expanded", open ? "true" : "false");
      const list = document.getElementById(panel.getAttribute("aria-controls"));
      if (list) list.hidden = !open;
    });
  }
  const source = document.getElementById("plan-timeline-data");
  if (!source) return;
  const data = JSON.parse(source.textContent);
  const steps = data.steps;
  const range = document.getElementById("plan-timeline-range");
  const prev = document.getElementById("plan-timeline-prev");
  const next = document.getElementById("plan-timeline-next");
  const status = document.getElementById("plan-timeline-status");
  const view = document.getElementById("plan-timeline-view");
  const jumps = Array.from(document.querySelectorAll("#plan-timeline-steps button[data-index]"));
  let at = -1;
  const show = (wanted) => {
    const index = Math.max(0, Math.min(steps.length - 1, wanted));
    const step = steps[index];
    at = index;
    range.value = String(index);
    range.setAttribute("aria-valuetext", step.label + " (" + step.position + ")");
    prev.disabled = index === 0;
    next.disabled = index === steps.length - 1;
    jumps.forEach((jump, k) => {
      if (k === index) jump.setAttribute("aria-current", "step");
      else jump.removeAttribute("aria-current");
    });
    const where = make("span", "where", step.label + " (" + step.position + ")");
    const progress = make("span", "progress", step.progress === null ? data.empty : step.progress);
    status.replaceChildren(where, data.joiner, progress);
    view.dataset.seq = String(step.seq);
    view.dataset.index = String(index);
    if (step.items.length === 0) {
      view.replaceChildren(make("p", "empty", data.empty));
      return;
    }
    const list = make("ul", "planList");
    for (const [state, name, content] of step.items) {
      const item = make("li");
      item.dataset.status = state;
      const glyph = make("span", "glyph");
      glyph.setAttribute("role", "img");
      glyph.setAttribute("aria-label", name);
      item.append(glyph, make("span", "content", content));
      list.append(item);
    }
    view.replaceChildren(list);
  };
  range.addEventListener("input", () => show(Number(range.value)));
  prev.addEventListener("click", () => show(at - 1));
  next.addEventListener("click", () => show(at + 1));
  jumps.forEach((jump, k) => jump.addEventListener("click", () => show(k)));
  show(steps.length - 1);
})();
