// retinue-web: the calls that wait for the person, as cards above the flow. They come from
// the record (the snapshot's `approvals`, then each delta's asked and closed cards), so every
// open page shows the same ones. A button sends the person's own command (/approve, /deny,
// /answer) through the view; the kernel's reply, or its refusal, is shown here. Arguments
// and questions are model output: put in with textContent only.
"use strict";

function setApprovals(cards) {
  state.approvals = new Map(cards.map((card) => [card.key, card]));
  state.dirty.add("approvals");
}

function applyApprovals(change) {
  for (const card of change.asked) {
    state.approvals.set(card.key, card);
    state.dirty.add(`member:${card.agent}`);
  }
  for (const key of change.closed) {
    const card = state.approvals.get(key);
    if (card) state.dirty.add(`member:${card.agent}`);
    state.approvals.delete(key);
  }
  state.dirty.add("approvals");
}

// A member whose run waits for the person shows so in the roster (its row says "idle" else).
function waitsForPerson(name) {
  for (const card of state.approvals.values()) if (card.agent === name) return true;
  return false;
}

// Cards already shown are kept as they are (a reason being typed stays); gone ones go.
function renderApprovals() {
  const box = $("approval-cards");
  const shown = new Map([...box.children].map((node) => [node.dataset.key, node]));
  for (const [key, node] of shown) if (!state.approvals.has(key)) node.remove();
  for (const card of state.approvals.values()) {
    if (!shown.has(card.key) || shown.get(card.key).dataset.live !== String(canAnswer())) {
      const node = approvalCard(card);
      if (shown.has(card.key)) shown.get(card.key).replaceWith(node); else box.append(node);
    }
  }
  $("approval-count").textContent = state.approvals.size ? `(${state.approvals.size})` : "";
  $("approvals").hidden = !state.approvals.size && !$("approvals-note").textContent;
}

const canAnswer = () => state.live && !state.ended;

function approvalCard(card) {
  const node = el("div", `approval ${card.kind}`);
  Object.assign(node.dataset, { key: card.key, member: card.agent, call: card.id, live: String(canAnswer()) });
  const head = el("div", "approval-head");
  head.append(el("b", null, card.agent), document.createTextNode(card.kind === "question" ? " asks you" : " waits for your approval"), el("span", "dim", ` · call ${card.id}`));
  node.append(head);
  if (card.kind === "question") {
    node.append(el("div", "question", card.question));
    const more = card.more_choices ? ` (and ${card.more_choices} more choices)` : "";
    if (more) node.append(el("div", "dim", more));
  } else {
    node.append(el("pre", "args", `${card.tool}(${card.args})`));
  }
  const about = [
    card.rule ? `rule '${card.rule}'` : "",
    card.asked_by ? `for ${card.asked_by}` : "",
    card.reviewer ? `${card.reviewer} reviews it too` : "",
    card.timeout ? `${card.on_timeout === "remind" ? "reminder" : "denied"} after ${card.timeout} s unanswered` : "",
  ].filter(Boolean);
  if (about.length) node.append(el("div", "dim", about.join(" · ")));
  if (!canAnswer()) { node.append(el("div", "dim", "not answered when this record ends")); return node; }
  const actions = el("div", "approval-actions");
  const text = el("input", "reason");
  text.setAttribute("aria-label", card.kind === "question" ? `answer to call ${card.id} of ${card.agent}` : `reason or note for call ${card.id} of ${card.agent}`);
  const button = (label, cls, verb, value) => {
    const b = el("button", cls, label);
    b.type = "button";
    b.onclick = () => answerCall(card, verb, value === undefined ? text.value : value, node);
    return b;
  };
  if (card.kind === "question") {
    for (const choice of card.choices || []) actions.append(button(choice, "choice", "answer", choice));
    text.placeholder = "your answer, or why you decline";
    actions.append(text, button("Answer", "answer", "answer"), button("Decline", "deny", "deny"));
  } else {
    text.placeholder = "a reason (to deny) or a note";
    actions.append(button("Approve", "approve", "approve"), text, button("Deny", "deny", "deny"));
  }
  node.append(actions, el("div", "approval-note"));
  return node;
}

async function answerCall(card, verb, text, node) {
  const note = node.querySelector(".approval-note");
  const buttons = [...node.querySelectorAll("button")];
  for (const b of buttons) b.disabled = true;
  note.className = "approval-note dim";
  note.textContent = `/${verb} ${card.id}…`;
  try {
    const reply = await post(teamPath(`approvals/${verb}`), { member: card.agent, call: card.id, text });
    const said = reply.text ? `${card.agent}: ${reply.text}` : `${reply.command} sent to ${card.agent}; no answer yet`;
    note.textContent = said;
    approvalsNote(said, false);
  } catch (error) {
    note.className = "approval-note error";
    note.textContent = error.message;
    approvalsNote(`${card.agent}, call ${card.id}: ${error.message}`, true);
  } finally {
    for (const b of buttons) b.disabled = false;
  }
}

// The last answer's outcome, kept after its card is gone (the call was answered).
function approvalsNote(text, bad) {
  const note = $("approvals-note");
  note.className = bad ? "error" : "dim";
  note.textContent = text;
  $("approvals").hidden = false;
}
