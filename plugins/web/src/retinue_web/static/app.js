// retinue-web: the page. It loads a team's snapshot, then applies the server's deltas in
// record order (Server-Sent Events; a reconnect resumes after the last position seen). Every
// text from the team is put in with textContent: nothing from a model reaches the markup.
"use strict";

const ROW = 26; // px, one flow line (must match --row in app.css)
const OVERSCAN = 12;

const state = {
  team: null, live: false, ended: false, position: 0, source: null,
  members: new Map(), rows: new Map(), flow: [], flowMore: false, loadingOlder: false,
  commands: {}, activity: {}, budget: null, chains: [], panels: [], openTab: "detail",
  selected: null, replaying: null, dirty: new Set(), teams: new Map(), approvals: new Map(),
};

const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

async function api(path, options) {
  const response = await fetch(path, options);
  const raw = await response.text();
  let body = null;  // the gate's refusals are one line of text, the API's answers JSON
  try { body = JSON.parse(raw); } catch (_) { body = { error: raw.trim() || response.statusText }; }
  if (!response.ok) throw new Error((body && body.error) || response.statusText);
  return body;
}

function post(path, data) {
  return api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data) });
}

const teamPath = (rest) => `/api/teams/${encodeURIComponent(state.team)}/${rest}`;

function clock(seconds) {
  if (!seconds) return "";
  return new Date(seconds * 1000).toLocaleTimeString([], { hour12: false });
}

function num(n) { return (n || 0).toLocaleString(); }
function usd(x) { return x ? `$${x.toFixed(4)}` : "—"; }

// ---------------------------------------------------------------- teams
async function loadTeams() {
  const found = await api("/api/teams");
  const select = $("team-select");
  select.replaceChildren();
  state.teams = new Map(found.teams.map((t) => [t.id, t]));
  for (const team of found.teams) {
    const fork = team.forked_from ? " ⑂" : "";
    const label = `${team.live ? "● " : ""}${team.name} · ${team.id.slice(0, 8)}${fork}${team.live ? " (live)" : ""}`;
    const option = el("option", null, label);
    option.value = team.id;
    select.append(option);
  }
  const wanted = new URLSearchParams(location.hash.slice(1)).get("team");
  const pick = found.teams.find((t) => t.id === wanted) || found.teams.find((t) => t.live) || found.teams[0];
  if (!pick) { $("conn").textContent = "no teams recorded"; return; }
  select.value = pick.id;
  await openTeam(pick.id);
}

async function openTeam(id, replay = false) {
  if (state.source) state.source.close();
  state.team = id;
  history.replaceState(null, "", `#team=${encodeURIComponent(id)}`);
  showOrigin(state.teams.get(id));
  const shot = await api(teamPath("snapshot"));
  reset(shot, replay);
  connect(replay ? 0 : shot.position, replay);
}

// A fork says where it began: the team and the position of its record it went on from.
function showOrigin(team) {
  const origin = $("origin"), from = team && team.forked_from;
  origin.hidden = !from;
  origin.textContent = from ? `⑂ forked from ${from.team_id.slice(0, 8)} at position ${from.position}` : "";
  origin.title = from ? `forked from team ${from.team_id}` : "";
}

function reset(shot, replay) {
  state.live = shot.team.live; state.ended = shot.team.ended;
  state.position = replay ? 0 : shot.position;
  state.members = new Map(); state.rows = new Map();
  $("roster").tBodies[0].replaceChildren();
  state.flow = replay ? [] : shot.flow.slice();
  state.flowMore = replay ? false : shot.flow_more;
  state.commands = replay ? {} : shot.commands;
  state.activity = shot.activity || {};
  state.chains = replay ? [] : shot.chains;
  state.panels = shot.panels;
  state.budget = replay ? null : shot.budget;
  state.selected = null;
  state.replaying = replay ? [] : null;
  $("approvals-note").textContent = "";
  setApprovals(replay ? [] : shot.approvals || []);
  if (!replay) for (const member of shot.members) state.members.set(member.name, member);
  $("replay").hidden = state.live;
  $("composer").hidden = !state.live;
  buildTabs();
  for (const part of ["roster", "flow", "budget", "tasks", "to"]) state.dirty.add(part);
  render(true);
}

function connect(after, replay) {
  const query = replay ? `after=0&replay=1` : `after=${after}`;
  const source = new EventSource(teamPath(`events?${query}`));
  state.source = source;
  source.onopen = () => setConn();
  source.onerror = () => { if (source.readyState !== EventSource.CLOSED) setConn("reconnecting…", "down"); };
  source.onmessage = (event) => {
    const delta = JSON.parse(event.data);
    if (state.replaying) state.replaying.push(delta); else apply(delta);
  };
  source.addEventListener("activity", (event) => {
    state.activity = JSON.parse(event.data);
    state.dirty.add("roster"); schedule();
  });
  source.addEventListener("reset", () => openTeam(state.team));
  if (replay) playBack();
}

function setConn(text, cls) {
  const conn = $("conn");
  conn.className = `badge ${cls || (state.live && !state.ended ? "live" : "")}`;
  conn.textContent = text || (state.live && !state.ended ? "live" : state.ended ? "ended" : "recorded, following");
}

function playBack() {
  const step = () => {
    if (state.replaying === null) return;
    const batch = state.replaying.splice(0, 8);
    for (const delta of batch) apply(delta);
    setTimeout(step, batch.length ? 40 : 200);
  };
  step();
}

// ---------------------------------------------------------------- deltas
function apply(delta) {
  if (delta.pos <= state.position) return; // seen already: never shown twice
  state.position = delta.pos;
  if (delta.flow) { state.flow.push(delta.flow); state.dirty.add("flow"); }
  if (delta.members) {
    for (const member of delta.members) {
      const isNew = !state.members.has(member.name);
      state.members.set(member.name, member);
      state.dirty.add(isNew ? "roster" : `member:${member.name}`);
    }
    state.dirty.add("to");
  }
  if (delta.commands) Object.assign(state.commands, delta.commands);
  if (delta.budget) { state.budget = delta.budget; state.dirty.add("budget"); }
  if (delta.chains) { state.chains = delta.chains; state.dirty.add("tasks"); }
  if (delta.team) { state.ended = delta.team.ended; setConn(); state.dirty.add("approvals"); }
  if (delta.approvals) applyApprovals(delta.approvals);
  if (delta.panels && delta.panels.includes(state.openTab)) refreshPanel();
  schedule();
}

let scheduled = false;
function schedule() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => { scheduled = false; render(false); });
}

function render(all) {
  const dirty = state.dirty;
  state.dirty = new Set();
  if (all || dirty.has("roster")) renderRoster();
  else for (const key of dirty) if (key.startsWith("member:")) renderMember(key.slice(7));
  if (all || dirty.has("flow")) renderFlow(true);
  if (all || dirty.has("budget")) renderBudget();
  if (all || dirty.has("tasks")) renderTasks();
  if (all || dirty.has("to")) renderRecipients();
  if (all || dirty.has("approvals")) renderApprovals();
}

// ---------------------------------------------------------------- roster
function stateOf(member) {
  const step = state.activity[member.name];
  if (step && member.state === "working") return [step.kind, step.kind === "model" ? "in a model request" : step.detail];
  if (member.state === "idle" && waitsForPerson(member.name)) return ["waiting", "for your answer"];
  const labels = { working: "in a run", idle: "", waiting: member.detail, failed: member.detail, left: "" };
  return [member.state, labels[member.state] ?? member.detail];
}

function renderRoster() {
  const body = $("roster").tBodies[0];
  body.replaceChildren();
  state.rows = new Map();
  for (const member of state.members.values()) {
    const tr = el("tr");
    tr.dataset.member = member.name;
    state.rows.set(member.name, tr);
    body.append(tr);
    fillMember(tr, member);
  }
  $("member-count").textContent = `(${state.members.size})`;
  renderTotals();
}

function renderMember(name) {
  const tr = state.rows.get(name);
  const member = state.members.get(name);
  if (tr && member) fillMember(tr, member);
  renderTotals();
}

function fillMember(tr, member) {
  const [kind, detail] = stateOf(member);
  const who = el("td");
  who.append(el("span", "who", member.name));
  who.append(el("span", "role", member.person ? "person" : member.role + (member.hired_by ? ` · hired by ${member.hired_by}` : "")));
  const st = el("td");
  const label = el("span", `state ${kind}`, { model: "model", tool: "tool call" }[kind] || kind);
  label.dataset.state = kind;
  st.append(label);
  if (detail) st.append(el("span", "state-detail", detail));
  const usage = member.usage || {};
  const action = el("td");
  if (state.live && !state.ended && !member.person && member.state !== "left") {
    const button = el("button", "stop", "Stop");
    button.type = "button";
    button.title = `/stop to ${member.name}: its run and the work it handed on`;
    button.onclick = () => stop({ member: member.name }, button);
    action.append(button);
  }
  tr.replaceChildren(who, st, el("td", "num", num(usage.runs)), el("td", "num", num(usage.total_tokens)), el("td", "num", usd(usage.cost_usd)), action);
}

function renderTotals() {
  const b = state.budget;
  if (!b) { $("totals").textContent = ""; return; }
  const u = b.usage;
  $("totals").textContent = `team: ${num(u.runs)} runs, ${num(u.requests)} requests, ${num(u.input_tokens)} in / ${num(u.output_tokens)} out tokens, ${usd(u.cost_usd)}${u.unpriced_requests ? " + unpriced" : ""}`;
}

// ---------------------------------------------------------------- budget
const LIMITS = [
  ["requests", "request_limit", "requests"], ["total_tokens", "total_tokens_limit", "tokens"],
  ["input_tokens", "input_tokens_limit", "input tokens"], ["output_tokens", "output_tokens_limit", "output tokens"],
  ["cost_usd", "cost_limit_usd", "USD"],
];

function renderBudget() {
  const b = state.budget;
  const fill = $("budget-fill");
  renderTotals();
  if (!b) { $("budget-text").textContent = ""; fill.style.width = "0"; return; }
  let worst = null;
  for (const [metric, key, label] of LIMITS) {
    const limit = b.limits[key];
    if (limit === null || limit === undefined) continue;
    const share = (b.usage[metric] || 0) / limit;
    if (!worst || share > worst.share) worst = { share, label, used: b.usage[metric] || 0, limit, metric };
  }
  if (!worst) {
    fill.style.width = "0";
    $("budget-text").textContent = `no budget · ${num(b.usage.total_tokens)} tokens · ${usd(b.usage.cost_usd)}`;
    return;
  }
  const shown = (v) => (worst.metric === "cost_usd" ? `$${v.toFixed(4)}` : num(v));
  fill.style.width = `${Math.min(100, worst.share * 100)}%`;
  fill.className = worst.share >= 1 || b.spent ? "spent" : worst.share >= 0.8 ? "high" : "";
  $("budget-text").textContent = `${worst.label}: ${shown(worst.used)} / ${shown(worst.limit)}${b.spent ? " · spent" : ""}`;
}

// ---------------------------------------------------------------- tasks and stops
function renderTasks() {
  const list = $("tasks");
  list.replaceChildren();
  if (!state.chains.length) { list.append(el("li", "dim", "nothing is running")); return; }
  for (const chain of state.chains) {
    const li = el("li");
    li.append(el("div", null, `${chain.root || "?"}: ${chain.text || chain.chain.slice(0, 8)}`));
    li.append(el("div", "dim", `working: ${chain.working.join(", ")}`));
    if (state.live && !state.ended) {
      const button = el("button", "stop", "Stop task");
      button.type = "button";
      button.onclick = () => stop({ chain: chain.chain }, button);
      li.append(button);
    }
    list.append(li);
  }
}

async function stop(what, button) {
  const li = el("li", "pending", `stopping ${what.member || "a task"}…`);
  $("reports").prepend(li);
  if (button) button.disabled = true;
  try {
    const answer = await post(teamPath("stop"), what);
    li.className = "report";
    li.replaceChildren();
    if (!answer.reports.length) li.textContent = "nobody to stop";
    for (const report of answer.reports) {
      const line = el("div");
      line.append(el("b", null, `/stop → ${report.to}: `));
      line.append(document.createTextNode(report.text || "sent; no answer yet"));
      if (report.stopped && report.stopped.length) line.append(el("div", "dim", `stopped: ${report.stopped.join(", ")}`));
      li.append(line);
    }
  } catch (error) {
    li.className = "report"; li.textContent = `stop failed: ${error.message}`;
  } finally {
    if (button) button.disabled = false;
  }
}

// ---------------------------------------------------------------- the flow (virtualized)
function renderFlow(follow) {
  const box = $("flow");
  const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - ROW * 2;
  $("flow-spacer").style.height = `${state.flow.length * ROW}px`;
  if (follow && atBottom) box.scrollTop = box.scrollHeight;
  drawRows();
}

function drawRows() {
  const box = $("flow");
  const first = Math.max(0, Math.floor(box.scrollTop / ROW) - OVERSCAN);
  const last = Math.min(state.flow.length, Math.ceil((box.scrollTop + box.clientHeight) / ROW) + OVERSCAN);
  const rows = [];
  for (let i = first; i < last; i++) rows.push(flowRow(state.flow[i], i));
  $("flow-rows").replaceChildren(...rows);
}

function flowRow(item, index) {
  const row = el("div", "row");
  row.style.top = `${index * ROW}px`;
  row.dataset.pos = item.pos;
  if (item.id) row.dataset.id = item.id;
  row.append(el("span", "time", clock(item.time)));
  if (item.kind === "message") {
    row.classList.add(`intent-${item.intent}`);
    if (item.type === "FailureNotice") row.classList.add("failure");
    if (item.type === "CancelMessage") row.classList.add("cancel");
    if (item.to_person) row.classList.add("to-person");
    row.append(el("span", "who", item.from || "outside"), document.createTextNode(" → "), el("span", "who", item.to || "?"));
    row.append(el("span", "intent", `[${item.type === "FailureNotice" ? "failure" : item.intent}]`));
    row.append(el("span", "text", item.text));
  } else {
    row.classList.add("event", `event-${item.event}`);
    row.append(el("span", "who", item.from || ""), document.createTextNode(" "), el("span", "text", item.text));
  }
  if (state.selected && state.selected.pos === item.pos) row.classList.add("selected");
  row.onclick = () => showDetail(item);
  return row;
}

async function loadOlder() {
  if (state.loadingOlder || !state.flowMore || !state.flow.length) return;
  state.loadingOlder = true;
  try {
    const page = await api(teamPath(`flow?before=${state.flow[0].pos}`));
    const box = $("flow");
    state.flow = page.flow.concat(state.flow);
    state.flowMore = page.more;
    $("flow-spacer").style.height = `${state.flow.length * ROW}px`;
    box.scrollTop += page.flow.length * ROW;
    drawRows();
  } finally {
    state.loadingOlder = false;
  }
}

// ---------------------------------------------------------------- detail and turns
function showDetail(item) {
  state.selected = item;
  selectTab("detail");
  drawRows();
  const box = $("detail");
  box.replaceChildren();
  const head = item.kind === "message" ? `${item.from || "outside"} → ${item.to} [${item.intent}]` : `${item.from} · ${item.event}`;
  box.append(el("div", "detail-head", head));
  box.append(el("div", "dim", `${clock(item.time)} · position ${item.pos}${item.chain ? ` · task ${item.chain.slice(0, 8)}` : ""}`));
  box.append(el("div", "text-block", item.text));
  const actions = el("div", "actions");
  if (item.kind === "message" && item.id) actions.append(turnButton(`Turn of ${item.to} on it`, item.id));
  if (item.parent) actions.append(turnButton("Turn that sent it", item.parent));
  if (state.live && !state.ended && item.chain) {
    const button = el("button", "stop", "Stop this task");
    button.type = "button";
    button.onclick = () => stop({ chain: item.chain }, button);
    actions.append(button);
  }
  box.append(actions);
  box.append(el("div", null));
}

function turnButton(label, messageId) {
  const button = el("button", null, label);
  button.type = "button";
  button.onclick = async () => {
    const box = $("detail").lastChild;
    box.replaceChildren(el("p", "dim", "reading the turn…"));
    try {
      showTurn(box, await api(teamPath(`turns/${encodeURIComponent(messageId)}`)));
    } catch (error) {
      box.replaceChildren(el("p", "dim", error.message));
    }
  };
  return button;
}

function showTurn(box, turn) {
  box.replaceChildren(el("div", "detail-head", `turn of ${turn.agent || "?"}: ${turn.runs.length} run(s)`));
  for (const run of turn.runs) {
    const div = el("div", "run");
    const u = run.usage;
    div.append(el("div", null, `run ${run.run.slice(0, 8)} · ${run.status}${run.error ? `: ${run.error}` : ""}`));
    div.append(el("div", "dim", `${u.requests} requests · ${num(u.input_tokens)} in / ${num(u.output_tokens)} out tokens · ${usd(u.cost_usd)}`));
    for (const message of run.messages) {
      for (const part of message.parts) {
        div.append(el("div", "part-kind", `${message.kind} · ${part.kind}${part.tool ? ` · ${part.tool}` : ""}`));
        if (part.text) div.append(el("pre", null, part.text));
      }
    }
    if (run.tools.length) div.append(el("div", "part-kind", `tools called: ${run.tools.map((t) => t.tool).join(", ")}`));
    box.append(div);
  }
}

// ---------------------------------------------------------------- panels
function buildTabs() {
  const tabs = $("tabs");
  tabs.replaceChildren();
  const tab = (name, title) => {
    const button = el("button", null, title);
    button.type = "button";
    button.dataset.tab = name;
    button.onclick = () => selectTab(name);
    tabs.append(button);
  };
  tab("detail", "Detail");
  for (const panel of state.panels) tab(panel.name, panel.title);
  selectTab(state.panels.some((p) => p.name === state.openTab) ? state.openTab : "detail");
}

function selectTab(name) {
  state.openTab = name;
  for (const button of $("tabs").children) button.classList.toggle("on", button.dataset.tab === name);
  $("detail").hidden = name !== "detail";
  $("panel").hidden = name === "detail";
  if (name !== "detail") refreshPanel(true);
}

let panelTimer = null;
function refreshPanel(now) {
  clearTimeout(panelTimer);
  panelTimer = setTimeout(async () => {
    const name = state.openTab;
    if (name === "detail") return;
    const box = $("panel");
    try {
      const view = await api(teamPath(`panels/${encodeURIComponent(name)}`));
      const table = el("table", "panel");
      const head = el("tr");
      for (const column of view.columns) head.append(el("th", null, column));
      table.append(head);
      for (const row of view.rows) {
        const tr = el("tr");
        for (const cell of row) tr.append(el("td", null, cell));
        table.append(tr);
      }
      box.replaceChildren(table);
      if (view.note) box.append(el("p", "dim", view.note));
    } catch (error) {
      box.replaceChildren(el("p", "dim", error.message));
    }
  }, now ? 0 : 300);
}

// ---------------------------------------------------------------- the composer
function renderRecipients() {
  const select = $("to");
  const current = select.value;
  const names = [...state.members.values()].filter((m) => !m.person && m.state !== "left").map((m) => m.name);
  if (names.join("\n") === [...select.options].map((o) => o.value).join("\n")) return;
  select.replaceChildren(...names.map((name) => { const o = el("option", null, name); o.value = name; return o; }));
  if (names.includes(current)) select.value = current;
}

let completionIndex = 0;
function completions() {
  const text = $("text").value;
  if (!text.startsWith("/") || text.includes(" ")) return [];
  const word = text.slice(1).toLowerCase();
  const known = (state.commands[$("to").value] || []).slice();
  if (!known.some((c) => c.name === "stop")) known.push({ name: "stop", usage: "/stop", description: "stop the run and the work it handed on" });
  return known.filter((c) => c.name.toLowerCase().startsWith(word));
}

function showCompletions() {
  const list = $("completions");
  const found = completions();
  list.replaceChildren();
  list.hidden = !found.length;
  completionIndex = Math.min(completionIndex, Math.max(0, found.length - 1));
  found.forEach((command, i) => {
    const li = el("li", i === completionIndex ? "on" : "");
    li.append(el("span", "usage", command.usage || `/${command.name}`), el("span", "about", command.description || ""));
    li.onmousedown = (event) => { event.preventDefault(); complete(command); };
    list.append(li);
  });
}

function complete(command) {
  $("text").value = `/${command.name} `;
  $("completions").hidden = true;
  $("text").focus();
}

async function send(event) {
  event.preventDefault();
  const input = $("text");
  const note = $("composer-note");
  const text = input.value;
  if (!text.trim()) return;
  $("send").disabled = true;
  try {
    const sent = await post(teamPath("say"), { to: $("to").value, text });
    input.value = "";
    note.className = "dim";
    note.textContent = `said to ${sent.to}`;
  } catch (error) {
    note.className = "error";
    note.textContent = error.message;
  } finally {
    $("send").disabled = false;
    $("completions").hidden = true;
  }
}

// ---------------------------------------------------------------- wiring
function wire() {
  $("flow").addEventListener("scroll", () => {
    drawRows();
    if ($("flow").scrollTop < ROW * 5) loadOlder();
  });
  window.addEventListener("resize", () => drawRows());
  $("team-select").onchange = (event) => openTeam(event.target.value);
  $("replay").onclick = () => openTeam(state.team, true);
  $("composer").addEventListener("submit", send);
  const input = $("text");
  input.addEventListener("input", () => { completionIndex = 0; showCompletions(); });
  input.addEventListener("keydown", (event) => {
    const found = completions();
    if ($("completions").hidden || !found.length) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      completionIndex = (completionIndex + (event.key === "ArrowDown" ? 1 : found.length - 1)) % found.length;
      showCompletions();
    } else if (event.key === "Tab" || (event.key === "Enter" && input.value.trim() !== `/${found[completionIndex].name}`)) {
      event.preventDefault();
      complete(found[completionIndex]);
    } else if (event.key === "Escape") {
      $("completions").hidden = true;
    }
  });
  input.addEventListener("blur", () => { $("completions").hidden = true; });
  $("to").onchange = () => showCompletions();
}

wire();
loadTeams().catch((error) => { $("conn").textContent = error.message; $("conn").className = "badge down"; });
