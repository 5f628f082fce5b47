// Presented lists, for producers that store turns themselves (the AI SDK
// middleware, the LangChain history): which items a reply's numbered list
// presents, out of what its tools returned, and whether a user's message is
// a bare pick ("3"). Recall's chat gateway does the same on the server
// (pkg/listsel); these are its core rules, and like them they give up
// rather than guess: a list with one position wrong would hand the user the
// wrong item, where no list only makes the assistant ask again.

import type { Item, JSONObject } from "./types.js";

/** The fields that make an object a list entry, in order of preference. */
const ID_KEYS = ["ref", "url", "link", "href", "uri", "id"];
const LABEL_KEYS = ["title", "name", "label", "headline"];

/** The most candidates listCandidates collects, and the deepest nesting it reads. */
const MAX_CANDIDATES = 1000;
const MAX_DEPTH = 32;

/**
 * listCandidates collects, from tool results, the objects that look like
 * entries of a list a reply could present: an object with an identifier
 * (`ref`, `url`, `link`, `href`, `uri` or `id`, in that order of preference;
 * a non-empty string or a number) and a label (`title`, `name`, `label` or
 * `headline`; a non-empty string), wherever it is nested, inside a string
 * that holds JSON too. Each item has the identifier as `ref`, the label as
 * `title` and the object as `attrs`; a later object with the same ref is
 * dropped.
 */
export function listCandidates(...results: unknown[]): Item[] {
  const out: Item[] = [];
  const seen = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (out.length >= MAX_CANDIDATES || depth > MAX_DEPTH) return;
    if (typeof v === "string") {
      const s = v.trim();
      if (s.startsWith("{") || s.startsWith("[") || s.startsWith('"')) {
        try {
          walk(JSON.parse(s), depth + 1);
        } catch {
          // Not JSON: a half-read document is no evidence.
        }
      }
      return;
    }
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    if (v === null || typeof v !== "object") return;
    const obj = v as Record<string, unknown>;
    const ref = field(obj, ID_KEYS, true);
    const title = field(obj, LABEL_KEYS, false);
    if (ref !== undefined && title !== undefined && !seen.has(ref)) {
      seen.add(ref);
      out.push({ ref, title, attrs: obj as JSONObject });
    }
    for (const x of Object.values(obj)) walk(x, depth + 1);
  };
  for (const r of results) walk(r, 0);
  return out;
}

/** field is the first of keys (any case) with a usable value, trimmed. */
function field(obj: Record<string, unknown>, keys: string[], numbers: boolean): string | undefined {
  const lower = new Map<string, unknown>();
  for (const [k, v] of Object.entries(obj)) {
    if (!lower.has(k.toLowerCase())) lower.set(k.toLowerCase(), v);
  }
  for (const k of keys) {
    const v = lower.get(k);
    if (typeof v === "string" && v.trim() !== "") return v.trim();
    if (numbers && typeof v === "number" && Number.isFinite(v)) return String(v);
  }
  return undefined;
}

/** One entry of a reply's numbered list: its number and its text without the marker. */
export interface NumberedEntry {
  n: number;
  text: string;
}

/**
 * A line that opens with a list marker: "1. X", "1) X", "1、X", "(1) X",
 * "**1.** X", "- 1. X", "### 1. X". After "." or ")" comes white space, so
 * "1.5 hours" is no entry.
 */
const MARKER = /^(?:[-*+]\s+|#{1,6}\s+)?(?:\*\*|__)?(?:\((\d{1,3})\)|(\d{1,3})(?:[.)](?=\s)|[、．]))(?:\*\*|__)?\s*(.*)$/u;

/**
 * listEntries is the numbered list a reply presents, or none: the reply's
 * last list numbered 1, 2, 3, … (a line numbered 1 starts a new one). A
 * number out of sequence spoils the list it is in, and "1." on every line
 * (which Markdown shows as 1, 2, 3) is no list; lines indented deeper than
 * the list and lines of fenced code are passed over.
 */
export function listEntries(reply: string): NumberedEntry[] {
  let cur: NumberedEntry[] = [];
  let indent = 0;
  let broken = false;
  let ones = false;
  let fenced = false;
  for (const line of reply.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const m = MARKER.exec(trimmed);
    if (!m) continue;
    const n = Number(m[1] ?? m[2]);
    const text = (m[3] ?? "").replace(/\*\*|__/g, "").trim();
    if (text === "") continue;
    const at = line.length - line.trimStart().length;
    if (cur.length > 0 && at >= indent + 2) continue; // a nested list
    if (n === 1) {
      ones = cur.length === 1 && !broken && (ones || cur[0]?.n === 1);
      cur = [{ n, text }];
      indent = at;
      broken = false;
    } else if (!broken && cur.length > 0 && n === cur.length + 1) {
      cur.push({ n, text });
      ones = false;
    } else {
      broken = true;
    }
  }
  return broken || ones ? [] : cur;
}

/**
 * presentedItems is the list of candidates a reply presents, in the
 * reply's order, or undefined when that cannot be told for certain: every
 * entry of the reply's numbered list must name exactly one candidate, and
 * no two entries the same one. A candidate's title names an entry when it
 * appears, as whole words (case, punctuation and spacing aside), in the
 * entry's head, the text before its first separator (" — ", ": ", " (",
 * ", " …), which is where an entry puts what it presents; a title inside a
 * longer one that also appears does not count ("Blade Runner" in "Blade
 * Runner 2049"). A ref that is an address (it holds a "/") written in the
 * entry names it as well, and tells apart two items of the same title.
 */
export function presentedItems(reply: string, candidates: Item[]): Item[] | undefined {
  const entries = listEntries(reply);
  if (entries.length === 0 || candidates.length === 0) return undefined;
  const titles = candidates.map((c) => normalize(c.title ?? ""));
  const out: Item[] = [];
  const named = new Set<string>();
  for (const e of entries) {
    const i = namedCandidate(e.text, candidates, titles);
    const c = i === undefined ? undefined : candidates[i];
    if (!c || named.has(c.ref)) return undefined;
    named.add(c.ref);
    out.push(c);
  }
  return out;
}

const HEAD_SEPARATORS = [" — ", " – ", " - ", "—", "–", ": ", " (", ", ", "; ", " | ", " / ", " by ", ". ", "：", "（", "(", "，", "；", "。"];

function namedCandidate(text: string, candidates: Item[], titles: string[]): number | undefined {
  const norm = normalize(text);
  let end = text.length;
  for (const s of HEAD_SEPARATORS) {
    const k = text.indexOf(s, 1);
    if (k >= 0 && k < end) end = k;
  }
  const headLen = normalize(text.slice(0, end)).length;
  const hits = candidates.map((c, i) => {
    const start = findTitle(norm, titles[i] ?? "");
    return { i, start, end: start + (titles[i]?.length ?? 0), byRef: refNamed(text, c.ref) };
  });
  const linked = hits.filter((h) => h.byRef).map((h) => h.i);
  const inHead = hits
    .filter((h) => h.start >= 0 && h.start < headLen)
    .filter((h) => !hits.some((g) => g.start >= 0 && g.end - g.start > h.end - h.start && g.start <= h.start && h.end <= g.end))
    .map((h) => h.i);
  if (linked.length === 0 && inHead.length === 1) return inHead[0];
  if (linked.length === 1 && (inHead.length === 0 || inHead.includes(linked[0]!))) return linked[0];
  return undefined;
}

/** normalize: case folded, full-width made half-width, punctuation and symbols made spaces, spaces collapsed. */
function normalize(s: string): string {
  return s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, " ")
    .trim()
    .replace(/(\p{Script=Han}) (?=\p{Script=Han})/gu, "$1");
}

/** findTitle is where the title occurs in text as whole words, or -1; a title of one character never does, one of digits only at the start only. */
function findTitle(norm: string, title: string): number {
  if ([...title].length < 2) return -1;
  const digits = /^[\d ]+$/.test(title);
  for (let from = 0; from <= norm.length - title.length; ) {
    const k = norm.indexOf(title, from);
    if (k < 0) return -1;
    const before = norm.slice(0, k).slice(-1);
    const after = norm.slice(k + title.length, k + title.length + 1);
    if (!spacedWord(before) && !spacedWord(after)) return digits && k > 0 ? -1 : k;
    from = k + 1;
  }
  return -1;
}

/** spacedWord: a letter or digit of a script written with spaces between words. */
function spacedWord(ch: string): boolean {
  return ch !== "" && /[\p{L}\p{N}]/u.test(ch) && !/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(ch);
}

/** refNamed: the ref is an address (holds a "/", at least 5 characters) written whole in text. */
function refNamed(text: string, ref: string): boolean {
  if ([...ref].length < 5 || !ref.includes("/")) return false;
  for (let from = 0; ; ) {
    const k = text.indexOf(ref, from);
    if (k < 0) return false;
    const next = text.charAt(k + ref.length);
    const prev = text.charAt(k - 1);
    const endOK = next === "" || !/[\w\-./?#%=&~]/u.test(next);
    const startOK = prev === "" || !/[\w\-./%~]/u.test(prev) || (ref.startsWith("/") && /^[a-z][a-z0-9+.-]*:\/\/[^/\s]+$/i.test(text.slice(0, k).split(/\s/).pop() ?? ""));
    if (endOK && startOK) return true;
    from = k + 1;
  }
}

/**
 * pickedNumber is the number a message that is nothing but a pick from a
 * numbered list names ("3", "3.", "#3", "no. 3", "number 3"), or
 * undefined. Anything more ("3 of them", "give me 3") is no pick: Recall's
 * context still shows the list with its refs, for the model to read.
 */
export function pickedNumber(text: string): number | undefined {
  const m = /^\s*(?:#|no\.?\s*|number\s+)?(\d{1,3})\s*[.!]?\s*$/iu.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return n >= 1 ? n : undefined;
}
