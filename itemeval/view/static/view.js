// itemeval view: a word diff of two answers, and the labelling queue's keyboard and writes.
// Every text goes into the page through textContent, never as HTML.
"use strict";

const MAX_WORDS = 4000; // a longer answer is diffed on its first words only (the diff is quadratic)

function token() {
  const meta = document.querySelector('meta[name="itemeval-token"]');
  return meta ? meta.getAttribute("content") : "";
}

function words(text) {
  return text.split(/(\s+)/).filter((w) => w.length > 0);
}

// Longest common subsequence over words: [op, word] with op "=", "-" (only in a) or "+" (only in b).
function diffWords(a, b) {
  const n = a.length, m = b.length;
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j]
        ? table[(i + 1) * width + j + 1] + 1
        : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
    }
  }
  const out = [];
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) { out.push(["=", a[i]]); i++; j++; }
    else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) { out.push(["-", a[i]]); i++; }
    else { out.push(["+", b[j]]); j++; }
  }
  while (i < n) out.push(["-", a[i++]]);
  while (j < m) out.push(["+", b[j++]]);
  return out;
}

function showDiff() {
  const a = document.getElementById(document.getElementById("diff-a").value);
  const b = document.getElementById(document.getElementById("diff-b").value);
  const target = document.getElementById("diff");
  target.textContent = "";
  if (!a || !b) return;
  let wa = words(a.textContent), wb = words(b.textContent);
  const cut = wa.length > MAX_WORDS || wb.length > MAX_WORDS;
  wa = wa.slice(0, MAX_WORDS); wb = wb.slice(0, MAX_WORDS);
  for (const [op, word] of diffWords(wa, wb)) {
    const span = document.createElement(op === "=" ? "span" : op === "-" ? "del" : "ins");
    span.textContent = word;
    target.appendChild(span);
  }
  if (cut) {
    const note = document.createElement("p");
    note.className = "dim";
    note.textContent = `(only the first ${MAX_WORDS} words of each answer are compared)`;
    target.appendChild(note);
  }
}

async function saveLabel(form, body) {
  const saved = document.getElementById("saved");
  saved.textContent = "saving…";
  const response = await fetch("/api/label", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Itemeval-Token": token() },
    body: JSON.stringify({ position: Number(form.dataset.position), ...body }),
  });
  const answer = await response.json();
  if (!response.ok) { saved.textContent = `not saved: ${answer.error}`; return; }
  window.location.assign(`/label?at=${answer.next}`);
}

function keyScore(key, low, high) {
  if (!/^[0-9]$/.test(key)) return null;
  let value = Number(key);
  if (value === 0 && low >= 1 && high === 10) value = 10;
  return value >= low && value <= high ? value : null;
}

function criteriaBody(form) {
  const criteria = {};
  for (const select of form.querySelectorAll("select.criterion")) {
    criteria[select.name] = Number(select.value);
  }
  return { criteria };
}

function setUpLabelling(form) {
  const low = Number(form.dataset.low), high = Number(form.dataset.high);
  const named = form.dataset.criteria !== "";
  let busy = false;
  const save = (body) => { if (!busy) { busy = true; saveLabel(form, body).finally(() => { busy = false; }); } };
  for (const button of form.querySelectorAll("button.score-button")) {
    button.addEventListener("click", () => save({ score: Number(button.dataset.score) }));
  }
  form.addEventListener("submit", (event) => { event.preventDefault(); if (named) save(criteriaBody(form)); });
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    // Enter saves the criteria wherever the focus is, a criterion's menu included
    if (named && event.key === "Enter") { event.preventDefault(); save(criteriaBody(form)); return; }
    if (event.target instanceof HTMLSelectElement || event.target instanceof HTMLInputElement) return;
    const link = event.key === "s" ? "skip" : event.key === "u" ? "undo" : null;
    if (link && document.getElementById(link)) { document.getElementById(link).click(); return; }
    const value = named ? null : keyScore(event.key, low, high);
    if (value !== null) { event.preventDefault(); save({ score: value }); }
  });
  form.dataset.ready = "1"; // the keys work from here on (tests wait for this)
}

document.addEventListener("DOMContentLoaded", () => {
  const button = document.getElementById("diff-button");
  if (button) button.addEventListener("click", showDiff);
  const form = document.getElementById("label-form");
  if (form) setUpLabelling(form);
  document.body.dataset.ready = "1";
});
