// Lector read-along page: shows the open book's chapter and highlights the word being heard.
//
// The daemon reports the heard word as SpeakingRange(start, length) in Unicode-scalar offsets
// of the chapter's speakable text. The chapter markup tags every stretch of that text as
// <span data-o="N">, whose text is exactly scalars N.. of it, so a word maps to a DOM Range
// without guessing. Highlights use the CSS Custom Highlight API: no DOM change per word.
"use strict";

const $ = (id) => document.getElementById(id);
const WORD = "lector-word", SENTENCE = "lector-sentence", CURSOR = "lector-cursor";
const BLOCKS = "p,li,h1,h2,h3,h4,h5,h6,td,th,dd,dt,blockquote,pre,figcaption,caption,aside,div,section";

const view = {
  snapshot: null,
  bookUrl: null,
  chapter: -1,          // the chapter shown
  loading: null,        // the chapter being fetched, and of which book ("N#url")
  spans: [],            // span[data-o] in text order
  offsets: [],          // their data-o values
  sentences: [],        // [start, end) of the chapter's sentences, in order (from the server)
  range: null,          // the last SpeakingRange {chapter, start, length}
  following: true,
  ourScroll: false,     // the page is scrolling itself to the reading line
  cursor: null,         // keyboard word cursor, a scalar offset
  chapters: [],
  serverErrors: 0,
  voicesShown: "",      // the voice list shown (JSON): the options are rebuilt only when it changes
  voiceTimer: 0,        // a voice chosen, not sent yet
  voiceSending: false,  // a voice on its way to the daemon
};
// For the benchmark and the tests: when each word arrived and when its frame was drawn.
const metrics = { ranges: [], rendered: [] };
window.lectorView = { view, metrics };   // control() is added below, for tests

const wordHighlight = new Highlight();
const sentenceHighlight = new Highlight();
const cursorHighlight = new Highlight();
wordHighlight.priority = 2;
cursorHighlight.priority = 3;
CSS.highlights.set(WORD, wordHighlight);
CSS.highlights.set(SENTENCE, sentenceHighlight);
CSS.highlights.set(CURSOR, cursorHighlight);

const now = () => performance.timeOrigin + performance.now();

// ---- Offsets: scalar offsets of the speakable text <-> DOM positions ----

/// The span holding scalar `offset` (the last span starting at or before it), or -1.
function spanIndex(offset) {
  const offsets = view.offsets;
  let low = 0, high = offsets.length - 1, found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (offsets[middle] <= offset) { found = middle; low = middle + 1; } else { high = middle - 1; }
  }
  return found;
}

/// Scalars in a span's text (code points, not UTF-16 units).
function scalarLength(span) {
  if (span._scalars === undefined) {
    const text = span.textContent;
    span._scalars = /[\uD800-\uDFFF]/.test(text) ? Array.from(text).length : text.length;
  }
  return span._scalars;
}

/// The DOM position of scalar `offset` inside span `index`: [text node, UTF-16 offset].
function domPosition(index, offset) {
  const span = view.spans[index];
  const node = span.firstChild;
  if (!node) return null;
  let scalars = Math.max(0, Math.min(offset - view.offsets[index], scalarLength(span)));
  const text = node.data;
  if (scalarLength(span) === text.length) return [node, scalars];
  let unit = 0;
  while (scalars > 0 && unit < text.length) {
    const code = text.charCodeAt(unit);
    unit += code >= 0xD800 && code <= 0xDBFF ? 2 : 1;
    scalars--;
  }
  return [node, unit];
}

/// A DOM Range for scalars [start, end) of the chapter text, or null where nothing is shown.
function textRange(start, end) {
  const first = spanIndex(start);
  if (first < 0) return null;
  let from = first;
  if (start >= view.offsets[first] + scalarLength(view.spans[first])) {
    // In a gap between spans (a separator): start at the next span.
    from = first + 1;
    if (from >= view.spans.length || view.offsets[from] >= end) return null;
    start = view.offsets[from];
  }
  const last = Math.max(from, spanIndex(end - 1));
  const a = domPosition(from, start), b = domPosition(last, Math.min(end, view.offsets[last] + scalarLength(view.spans[last])));
  if (!a || !b) return null;
  const range = new Range();
  range.setStart(a[0], a[1]);
  range.setEnd(b[0], b[1]);
  return range;
}

/// Scalar offset of a DOM point (a click), or null outside the spoken text.
function offsetAt(node, unitOffset) {
  const span = node && (node.nodeType === Node.TEXT_NODE ? node.parentElement : node);
  if (!span || !span.matches || !span.matches("span[data-o]")) return null;
  const text = span.textContent.slice(0, node.nodeType === Node.TEXT_NODE ? unitOffset : 0);
  return Number(span.dataset.o) + Array.from(text).length;
}

// ---- Sentences: narration's own, from the server, within the heard word's block ----

function blockOf(span) { return span.parentElement.closest(BLOCKS) || view.article; }

/// [start, end) scalars of the sentence around `offset`, within its block.
function sentenceAround(index, offset) {
  const block = blockOf(view.spans[index]);
  let first = index, last = index;
  while (first > 0 && blockOf(view.spans[first - 1]) === block) first--;
  while (last + 1 < view.spans.length && blockOf(view.spans[last + 1]) === block) last++;
  let start = view.offsets[first], end = view.offsets[last] + scalarLength(view.spans[last]);
  // The last sentence starting at or before the word (they are in order).
  let low = 0, high = view.sentences.length - 1, found = null;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (view.sentences[middle][0] <= offset) { found = view.sentences[middle]; low = middle + 1; } else { high = middle - 1; }
  }
  if (found && offset < found[1]) { start = Math.max(start, found[0]); end = Math.min(end, found[1]); }
  return [start, end];
}

// ---- Highlighting and following ----

function highlight(range, arrived) {
  view.range = range;
  wordHighlight.clear();
  sentenceHighlight.clear();
  if (range.chapter !== view.chapter) return;
  const word = textRange(range.start, range.start + Math.max(1, range.length));
  if (!word) return;
  wordHighlight.add(word);
  const index = spanIndex(range.start);
  if (index >= 0) {
    const [start, end] = sentenceAround(index, range.start);
    const sentence = textRange(start, end);
    if (sentence) sentenceHighlight.add(sentence);
  }
  if (view.following) keepInView(word);
  if (arrived !== undefined) {
    const entry = { start: range.start, length: range.length, chapter: range.chapter,
                    signal: range.received, arrived, text: word.toString() };
    requestAnimationFrame(() => {
      entry.painted = now();
      metrics.ranges.push(entry);
      if (metrics.ranges.length > 20000) metrics.ranges.splice(0, 10000);
    });
  }
}

/// Scrolls so the reading line stays in the upper-middle of the window.
function keepInView(range) {
  const rect = range.getBoundingClientRect();
  const bar = document.querySelector(".bar").getBoundingClientRect().bottom;
  const height = window.innerHeight;
  if (rect.top >= bar + 0.1 * height && rect.bottom <= 0.7 * height) return;
  view.ourScroll = true;
  // scrollend ends it; a scroll that could not move (the page's end) sends none.
  clearTimeout(view.ourScrollTimer);
  view.ourScrollTimer = setTimeout(() => { view.ourScroll = false; }, 1500);
  window.scrollBy({ top: rect.top - bar - 0.25 * (height - bar), behavior: "smooth" });
}

function stopFollowing() {
  if (!view.following) return;
  view.following = false;
  $("follow").hidden = false;
}

function resumeFollowing() {
  view.following = true;
  $("follow").hidden = true;
  if (view.range && view.range.chapter === view.chapter) {
    const word = textRange(view.range.start, view.range.start + Math.max(1, view.range.length));
    if (word) keepInView(word);
  } else if (view.snapshot && view.snapshot.book && view.snapshot.book.chapter !== view.chapter) {
    loadChapter(view.snapshot.book.chapter);
  }
}

addEventListener("scrollend", () => { view.ourScroll = false; });
addEventListener("scroll", () => { if (!view.ourScroll) stopFollowing(); }, { passive: true });
for (const type of ["wheel", "touchmove"]) addEventListener(type, () => { view.ourScroll = false; stopFollowing(); }, { passive: true });

// ---- The chapter ----

async function loadChapter(number) {
  // Keyed by the book too: a load of the last book's chapter 0 (its end rewinds there) must
  // neither hold back nor stand in for the next book's chapter 0.
  const key = `${number}#${view.bookUrl}`;
  if (number < 0 || view.loading === key) return;
  view.loading = key;
  const started = now();
  let markup;
  try {
    const answer = await fetch(`/api/chapter/${number}`);
    if (!answer.ok) throw new Error((await answer.json().catch(() => ({}))).error || answer.statusText);
    markup = await answer.json();
  } catch (error) {
    if (view.loading === key) view.loading = null;
    status(`Chapter ${number + 1} could not be shown: ${error.message}`);
    return;
  }
  if (view.loading !== key) return;       // another chapter (or book) was asked for meanwhile
  view.loading = null;
  const template = document.createElement("template");
  template.innerHTML = markup.html;       // sanitised by the daemon; this page's CSP runs no other script
  view.article.replaceChildren(template.content);
  view.spans = Array.from(view.article.querySelectorAll("span[data-o]"));
  view.offsets = view.spans.map((span) => Number(span.dataset.o));
  view.sentences = markup.sentences || [];
  view.chapter = number;
  view.html = markup.html;                // kept for the benchmark's render-only timing
  view.cursor = null;
  cursorHighlight.clear();
  $("empty").hidden = true;
  markChapter();
  const rendered = { chapter: number, fetched: now() - started, spans: view.spans.length };
  requestAnimationFrame(() => { rendered.painted = now() - started; metrics.rendered.push(rendered); });
  if (view.range && view.range.chapter === number) {
    highlight(view.range);
  } else {
    wordHighlight.clear();
    sentenceHighlight.clear();
    if (view.following) { view.ourScroll = true; window.scrollTo({ top: 0 }); view.ourScroll = false; }
  }
}

function markChapter() {
  for (const button of $("chapters").querySelectorAll("button")) {
    const current = Number(button.dataset.chapter) === view.chapter;
    button.setAttribute("aria-current", current ? "true" : "false");
    if (current && view.following) button.scrollIntoView({ block: "nearest" });
  }
  const chapter = view.chapters[view.chapter];
  $("chapter-title").textContent = chapter ? chapter.title : "";
}

async function loadChapters() {
  try {
    const answer = await fetch("/api/chapters");
    view.chapters = answer.ok ? await answer.json() : [];
  } catch { view.chapters = []; }
  const list = $("chapters");
  list.replaceChildren(...view.chapters.map((chapter, index) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.chapter = String(index);
    button.style.paddingLeft = `${0.4 + chapter.depth}em`;
    button.textContent = chapter.title;
    if (chapter.seconds > 0) button.title = `${chapter.title} (${duration(chapter.seconds)})`;
    button.addEventListener("click", () => control({ action: "goToChapter", chapter: index }));
    item.append(button);
    return item;
  }));
  markChapter();
}

function duration(seconds) {
  const m = Math.round(seconds / 60);
  return m >= 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m} min`;
}

// ---- The narrator's state ----

const reasons = {
  "user": "Paused", "device-removed": "Paused: the output device went away",
  "headphones-unplugged": "Paused: headphones unplugged", "stream-moved": "Paused: the sound moved to another output",
  "call": "Paused for a call", "announcement": "An announcement is speaking",
  "sound-server-lost": "Paused: the sound server went away", "stream-failed": "Paused: the sound stream failed",
};

function onState(snapshot) {
  view.snapshot = snapshot;
  $("offline").hidden = snapshot.running;
  document.body.classList.toggle("offline", !snapshot.running);
  for (const id of ["previous", "back", "play", "forward", "next", "rate"]) $(id).disabled = !snapshot.book;
  const book = snapshot.book;
  showVoices(book);
  if (!snapshot.running) return;
  if (!book) {
    $("book-title").textContent = "Lector";
    $("book-authors").textContent = "";
    $("chapter-title").textContent = "";
    $("cover").hidden = true;
    $("empty").hidden = false;
    view.article.replaceChildren();
    view.chapter = -1;
    view.bookUrl = null;
    return;
  }
  $("book-title").textContent = book.title;
  $("book-authors").textContent = book.authors;
  document.title = `${book.title}: Lector`;
  view.article.lang = book.language || "";
  const playing = snapshot.status === "Playing";
  $("play-icon").setAttribute("href", playing ? "#icon-pause" : "#icon-play");
  $("play").setAttribute("aria-label", playing ? "Pause" : "Play");
  $("rate").value = String(snapshot.rate);
  $("rate-value").textContent = `${snapshot.rate.toFixed(1)}×`;
  status(playing ? (snapshot.pausedBecause === "announcement" ? reasons.announcement : "")
                 : (reasons[snapshot.pausedBecause] || snapshot.status));
  if (book.url !== view.bookUrl) {
    view.bookUrl = book.url;
    view.chapter = -1;
    view.range = null;
    const cover = $("cover");
    cover.hidden = !book.hasCover;
    if (book.hasCover) cover.src = `/cover?book=${encodeURIComponent(book.url)}`;
    loadChapters();
  }
  if (book.chapter !== view.chapter) showChapter(book.chapter);
}

/// Narration moved to another chapter: show it and follow it again (the place the listener
/// scrolled to was in the chapter that ended).
function showChapter(number) {
  if (!view.following) { view.following = true; $("follow").hidden = true; }
  loadChapter(number);
}

function onRange(range) {
  const arrived = now();
  if (range.chapter !== view.chapter) {
    view.range = range;
    showChapter(range.chapter);
    return;
  }
  highlight(range, arrived);
}

function status(text) { $("status").textContent = text; }

/// Sends a control; true when the daemon did it (else the page says why).
async function control(body) {
  try {
    const answer = await fetch("/api/control", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    if (answer.ok) return true;
    status((await answer.json().catch(() => ({}))).error || `Failed: ${answer.statusText}`);
  } catch (error) {
    status(`Failed: ${error.message}`);
  }
  return false;
}

// ---- The book's voices (Narrator1.BookVoices), the one reading it selected ----

/// "joe (en-us) — natural (Piper)", "English (America) — espeak-ng".
function voiceLabel(voice) {
  const name = voice.name.replace(/_/g, " ");
  return voice.engine === "piper" ? `${name} (${voice.language}) — natural (Piper)` : `${name} — ${voice.engine}`;
}

/// The picker: hidden without voices, shown but not a choice with only one.
function showVoices(book) {
  const voices = (book && book.voices) || [];
  const select = $("voice");
  $("voice-field").hidden = voices.length === 0;
  const key = JSON.stringify(voices);
  if (key !== view.voicesShown) {
    // Another book's voices: a choice not sent yet was one of the last book's.
    clearTimeout(view.voiceTimer);
    view.voiceTimer = 0;
    view.voicesShown = key;
    select.replaceChildren(...voices.map((voice) => {
      const option = document.createElement("option");
      option.value = voice.name;
      option.textContent = voiceLabel(voice);
      return option;
    }));
  }
  select.disabled = voices.length < 2;
  // The listener's own choice, not sent or not answered yet, stays shown.
  if (book && !view.voiceTimer && !view.voiceSending) select.value = book.voice;
}

/// The listener chose a voice. Arrow keys on the list change it one voice at a time: the one
/// they rest on for half a second is sent (the daemon re-reads the word being heard at each).
function voiceChosen() {
  clearTimeout(view.voiceTimer);
  view.voiceTimer = setTimeout(async () => {
    view.voiceTimer = 0;
    const book = view.snapshot && view.snapshot.book;
    const name = $("voice").value;
    if (!book || !name || name === book.voice) return;
    view.voiceSending = true;
    const done = await control({ action: "voice", voice: name });
    view.voiceSending = false;
    // Refused: back to the voice reading it (done: the state event brings the new one).
    if (!done && view.snapshot) showVoices(view.snapshot.book);
  }, 500);
}

// ---- Listening to the server ----

function connect() {
  const events = new EventSource("/events");
  events.addEventListener("open", () => { view.serverErrors = 0; });
  events.addEventListener("state", (event) => onState(JSON.parse(event.data)));
  events.addEventListener("range", (event) => onRange(JSON.parse(event.data)));
  events.addEventListener("error", () => {
    // The browser retries by itself; after a few failures the server is gone for good.
    if (++view.serverErrors >= 3 || events.readyState === EventSource.CLOSED) {
      $("offline-title").textContent = "The read-along page has stopped";
      $("offline-text").textContent = "Run lector view to open it again.";
      $("offline").hidden = false;
      if (events.readyState === EventSource.CLOSED) events.close();
    }
  });
}

// ---- Controls, keyboard, settings ----

function setUpControls() {
  $("play").addEventListener("click", () => control({ action: "playPause" }));
  $("previous").addEventListener("click", () => control({ action: "previous" }));
  $("next").addEventListener("click", () => control({ action: "next" }));
  $("back").addEventListener("click", () => control({ action: "skip", seconds: -15 }));
  $("forward").addEventListener("click", () => control({ action: "skip", seconds: 30 }));
  $("rate").addEventListener("change", () => control({ action: "rate", rate: Number($("rate").value) }));
  $("rate").addEventListener("input", () => { $("rate-value").textContent = `${Number($("rate").value).toFixed(1)}×`; });
  $("voice").addEventListener("change", voiceChosen);
  $("follow").addEventListener("click", resumeFollowing);
  $("settings-toggle").addEventListener("click", () => {
    const panel = $("settings");
    panel.hidden = !panel.hidden;
    $("settings-toggle").setAttribute("aria-expanded", String(!panel.hidden));
  });

  view.article.addEventListener("click", (event) => {
    if (!document.getSelection().isCollapsed) return;     // selecting text, not choosing a word
    const caret = document.caretPositionFromPoint
      ? document.caretPositionFromPoint(event.clientX, event.clientY)
      : document.caretRangeFromPoint(event.clientX, event.clientY);
    const node = caret && (caret.offsetNode || caret.startContainer);
    const unit = caret && (caret.offset ?? caret.startOffset);
    let offset = offsetAt(node, unit);
    if (offset === null && event.target.matches && event.target.matches("span[data-o]")) offset = Number(event.target.dataset.o);
    if (offset === null) return;
    readFrom(offset);
  });

  addEventListener("keydown", (event) => {
    const target = event.target;
    if (target.matches("input, select, textarea") || event.altKey || event.metaKey) return;
    const onButton = target.matches("button");
    if (event.key === " " && !onButton) { event.preventDefault(); control({ action: "playPause" }); return; }
    if (event.ctrlKey && (event.key === "ArrowRight" || event.key === "ArrowLeft") && target === $("page")) {
      event.preventDefault();
      moveCursor(event.key === "ArrowRight" ? 1 : -1);
      return;
    }
    if (event.ctrlKey) return;
    if (event.key === "Enter" && target === $("page") && view.cursor !== null) { readFrom(view.cursor); return; }
    if (event.key === "Escape") { resumeFollowing(); return; }
    if (onButton) return;
    switch (event.key) {
      case "ArrowLeft": event.preventDefault(); control({ action: "skip", seconds: -15 }); break;
      case "ArrowRight": event.preventDefault(); control({ action: "skip", seconds: 30 }); break;
      case "n": case "N": control({ action: "next" }); break;
      case "p": case "P": control({ action: "previous" }); break;
      case "+": case "]": changeRate(0.1); break;
      case "-": case "[": changeRate(-0.1); break;
    }
  });
}

function readFrom(offset) {
  view.cursor = null;
  cursorHighlight.clear();
  resumeFollowing();
  control({ action: "seekToText", chapter: view.chapter, offset });
}

function changeRate(step) {
  const rate = Math.min(2.5, Math.max(0.5, Math.round((Number($("rate").value) + step) * 10) / 10));
  $("rate").value = String(rate);
  control({ action: "rate", rate });
}

/// Ctrl+arrows move a word cursor through the text (from the heard word); Enter reads from it.
function moveCursor(direction) {
  if (!view.spans.length) return;
  let offset = view.cursor ?? (view.range && view.range.chapter === view.chapter ? view.range.start : view.offsets[0]);
  let index = Math.max(0, spanIndex(offset));
  let chars = Array.from(view.spans[index].textContent);
  let k = Math.max(0, offset - view.offsets[index]);
  const isSpace = (c) => c === undefined || /\s/.test(c);
  if (view.cursor !== null || direction > 0) {
    // Past this word, then past the spaces, to the next word's first character (either way).
    const step = () => {
      k += direction;
      if (k < 0 || k >= chars.length) {
        index += direction;
        if (index < 0 || index >= view.spans.length) return false;
        chars = Array.from(view.spans[index].textContent);
        k = direction > 0 ? 0 : chars.length - 1;
      }
      return true;
    };
    if (direction > 0) {
      while (!isSpace(chars[k]) && step()) {}
      while (isSpace(chars[k]) && step()) {}
    } else {
      while (!isSpace(chars[k - 1]) && k > 0) k--;
      if (step()) { while (isSpace(chars[k]) && step()) {} while (k > 0 && !isSpace(chars[k - 1])) k--; }
    }
    index = Math.min(Math.max(index, 0), view.spans.length - 1);
  }
  view.cursor = view.offsets[index] + Math.max(0, Math.min(k, chars.length - 1));
  let end = view.cursor;
  const wordChars = Array.from(view.spans[index].textContent);
  let e = view.cursor - view.offsets[index];
  while (e < wordChars.length && !isSpace(wordChars[e])) { e++; end++; }
  cursorHighlight.clear();
  const range = textRange(view.cursor, Math.max(end, view.cursor + 1));
  if (range) {
    cursorHighlight.add(range);
    stopFollowing();
    const rect = range.getBoundingClientRect();
    if (rect.top < 0 || rect.bottom > innerHeight) window.scrollBy({ top: rect.top - innerHeight / 3 });
  }
}

const settingsKey = "lector-view-settings";

function setUpSettings() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(settingsKey) || "{}"); } catch { saved = {}; }
  const settings = {
    theme: saved.theme || (matchMedia("(prefers-contrast: more)").matches ? "contrast"
      : matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"),
    fontSize: Number(saved.fontSize) || 100,
    lineHeight: Number(saved.lineHeight) || 1.6,
  };
  const apply = () => {
    settings.fontSize = Math.min(300, Math.max(100, settings.fontSize));
    settings.lineHeight = Math.min(2.6, Math.max(1.2, settings.lineHeight));
    document.documentElement.dataset.theme = settings.theme;
    document.documentElement.style.setProperty("--font-scale", String(settings.fontSize / 100));
    document.documentElement.style.setProperty("--line-height", String(settings.lineHeight));
    $("theme").value = settings.theme;
    $("font-size").value = String(settings.fontSize);
    $("font-size-value").textContent = `${settings.fontSize} %`;
    $("line-height").value = String(settings.lineHeight);
    $("line-height-value").textContent = settings.lineHeight.toFixed(1);
    localStorage.setItem(settingsKey, JSON.stringify(settings));
  };
  $("theme").addEventListener("change", () => { settings.theme = $("theme").value; apply(); });
  $("font-size").addEventListener("input", () => { settings.fontSize = Number($("font-size").value); apply(); });
  $("line-height").addEventListener("input", () => { settings.lineHeight = Number($("line-height").value); apply(); });
  apply();
}

window.lectorView.control = control;
/// For the tests: the text the sentence highlight would mark around a word at `offset`.
window.lectorView.sentenceText = (offset) => {
  const index = spanIndex(offset);
  if (index < 0) return null;
  const [start, end] = sentenceAround(index, offset);
  const range = textRange(start, end);
  return range ? range.toString() : null;
};
view.article = $("chapter");
setUpSettings();
setUpControls();
connect();
