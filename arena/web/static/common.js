// Tarock Arena web pages: shared helpers on window.tarock (stable names, also
// used by the play page):
//   el(tag, attrs, ...children)  build DOM; strings become text nodes (never HTML)
//   cardElement(name)            one card of the fixed notation ("T21", "HK", "C10")
//   nav(activeKey)               the common header (keys: home, leaderboard, matches,
//                                tournaments, bots, play)
//   api(path)                    fetch JSON from the arena, throw Error on failure
//   actionWords(action, who, o)  one action in words, the same on the viewer and
//                                the play page: "You bid Three", "North passes"
//   actionLabel(action, o)       a button's label for one's own legal action
//   kontraLevels(steps)          the kontra level of each `kontra` in a hand's actions
// Everything from the store is put in the page as text (textContent), never as HTML.
(function () {
  'use strict';

  // el('a', {href: '/x', class: 'c', onclick: fn, dataset: {k: 'v'}}, 'text', child, [more])
  function el(tag, attrs) {
    const node = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false) continue;
        if (k === 'class' || k === 'className') node.className = v;
        else if (k === 'text') node.textContent = String(v);
        else if (k === 'style' && typeof v === 'object') Object.assign(node.style, v);
        else if (k === 'dataset') Object.assign(node.dataset, v);
        else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
        else if (v === true) node.setAttribute(k, '');
        else node.setAttribute(k, String(v));
      }
    }
    for (let i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach((c) => append(node, c)); return; }
    if (child instanceof Node) node.appendChild(child);
    else node.appendChild(document.createTextNode(String(child)));
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  // ---- cards -------------------------------------------------------------
  const SUITS = {
    H: { sym: '\u2665', name: 'hearts', red: true },
    D: { sym: '\u2666', name: 'diamonds', red: true },
    C: { sym: '\u2663', name: 'clubs', red: false },
    S: { sym: '\u2660', name: 'spades', red: false },
  };
  const RANKS = { K: 'king', Q: 'queen', N: 'knight', J: 'jack' };
  const ROMAN = ['', 'I', 'II', 'III', 'IIII', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII',
    'XIII', 'XIV', 'XV', 'XVI', 'XVII', 'XVIII', 'XIX', 'XX', 'XXI', ''];
  const TAROCK_NAMES = { 1: 'Pagat', 21: 'Mond', 22: '\u0160kis' };

  // What a card name means: {kind: 'tarock'|'suit'|'hidden', ...}.
  function parseCard(name) {
    const s = String(name || '');
    let m = /^T([1-9]|1[0-9]|2[0-2])$/.exec(s);
    if (m) return { kind: 'tarock', n: Number(m[1]) };
    m = /^([HDCS])(K|Q|N|J|10|[1-9])$/.exec(s);
    if (m) return { kind: 'suit', suit: m[1], rank: m[2] };
    return { kind: 'hidden' };
  }
  function cardTitle(name) {
    const c = parseCard(name);
    if (c.kind === 'tarock') return 'Tarock ' + c.n + (TAROCK_NAMES[c.n] ? ' (' + TAROCK_NAMES[c.n] + ')' : '');
    if (c.kind === 'suit') return (RANKS[c.rank] || c.rank) + ' of ' + SUITS[c.suit].name;
    return 'hidden card';
  }
  // A card as a small face: a tarock shows its number (and I..XXI; the Škis a star),
  // a suit card its rank and the suit symbol in red or black. opts: {small, mark}.
  function cardElement(name, opts) {
    opts = opts || {};
    const c = parseCard(name);
    const cls = ['card'];
    if (opts.small) cls.push('card-sm');
    let top;
    let mid;
    if (c.kind === 'tarock') {
      cls.push('card-tarock');
      if (c.n === 1 || c.n >= 21) cls.push('card-trul');
      top = el('span', { class: 'card-rank' }, String(c.n));
      mid = el('span', { class: 'card-sym' }, c.n === 22 ? '\u2605' : ROMAN[c.n]);
    } else if (c.kind === 'suit') {
      const s = SUITS[c.suit];
      cls.push(s.red ? 'card-red' : 'card-black', 'suit-' + c.suit);
      if (c.rank in RANKS) cls.push('card-face');
      top = el('span', { class: 'card-rank' }, c.rank);
      mid = el('span', { class: 'card-sym' }, s.sym);
    } else {
      cls.push('card-back');
      top = el('span', { class: 'card-rank' }, '?');
      mid = el('span', { class: 'card-sym' }, '');
    }
    if (opts.mark) cls.push('card-' + opts.mark);
    return el('span', { class: cls.join(' '), title: cardTitle(name), 'data-card': String(name || '?'),
      role: 'img', 'aria-label': cardTitle(name) }, top, mid);
  }
  // Sorts card names for display: tarocks high to low, then suits H D C S by rank.
  const RANK_ORDER = { K: 0, Q: 1, N: 2, J: 3, '10': 4, '9': 5, '8': 6, '7': 7, '1': 4, '2': 5, '3': 6, '4': 7 };
  function sortCards(cards) {
    const key = (name) => {
      const c = parseCard(name);
      if (c.kind === 'tarock') return [0, 22 - c.n];
      if (c.kind === 'suit') return [1 + 'HDCS'.indexOf(c.suit), RANK_ORDER[c.rank] || 0];
      return [9, 0];
    };
    return cards.slice().sort((a, b) => { const x = key(a); const y = key(b); return x[0] - y[0] || x[1] - y[1]; });
  }

  // ---- header and page frame ---------------------------------------------
  const NAV = [
    ['home', '/', 'Home'],
    ['leaderboard', '/leaderboard', 'Leaderboards'],
    ['matches', '/matches', 'Matches'],
    ['ladders', '/ladders', 'Ladders'],
    ['tournaments', '/tournaments', 'Tournaments'],
    ['tests', '/tests', 'Tests'],
    ['bots', '/bots', 'Bots'],
    ['events', '/events', 'Events'],
    ['play', '/play', 'Play'],
  ];
  // Renders the common header at the top of the page (into <header id="nav">
  // when there is one) and returns it.
  function nav(activeKey) {
    let header = document.getElementById('nav');
    if (!header) {
      header = el('header', { id: 'nav' });
      document.body.insertBefore(header, document.body.firstChild);
    }
    clear(header);
    header.className = 'topbar';
    const links = NAV.map(([key, href, label]) =>
      el('a', { href, class: key === activeKey ? 'active' : null }, label));
    header.appendChild(el('div', { class: 'topbar-inner' },
      el('a', { href: '/', class: 'brand' }, el('span', { class: 'brand-mark' }, 'XXI'), 'Tarock Arena'),
      el('nav', { class: 'navlinks' }, links)));
    return header;
  }

  // ---- data ---------------------------------------------------------------
  async function api(path) {
    let res;
    try {
      res = await fetch(path, { headers: { Accept: 'application/json' }, cache: 'no-store' });
    } catch (e) {
      throw new Error('the arena does not answer (' + e.message + ')');
    }
    let body = null;
    try { body = await res.json(); } catch (e) { body = null; }
    if (!res.ok) {
      const err = new Error((body && body.error) || ('HTTP ' + res.status));
      err.status = res.status;
      throw err;
    }
    return body;
  }

  // ---- actions in words (one wording for the viewer and the play page) ----
  const ORDINAL = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'];
  const KONTRA = ['Kontra', 'Rekontra', 'Subkontra', 'Mordkontra'];
  function capital(s) { s = String(s); return s.charAt(0).toUpperCase() + s.slice(1); }
  // A contract or bonus name in words: "open-beggar" -> "Open beggar".
  function term(s) { return capital(String(s || '').replace(/[-_]/g, ' ')); }
  // A card with its article: "the King of Hearts", "the Pagat", "tarock XV".
  function cardPhrase(name) {
    const c = parseCard(name);
    if (c.kind === 'tarock') return TAROCK_NAMES[c.n] ? 'the ' + TAROCK_NAMES[c.n] : 'tarock ' + ROMAN[c.n];
    if (c.kind === 'suit') return 'the ' + capital(RANKS[c.rank] || c.rank) + ' of ' + capital(SUITS[c.suit].name);
    return 'a hidden card';
  }
  function kontraTarget(t) { return t === 'game' ? 'the game' : term(t); }
  // levels[i] for every `kontra` action in `actions` (strings): 1 = Kontra,
  // 2 = Rekontra, ... counted per target within the hand.
  function kontraLevels(actions) {
    const seen = {};
    return actions.map((a) => {
      const [verb, ...rest] = String(a).split(' ');
      if (verb !== 'kontra') return 0;
      const t = rest.join(' ');
      seen[t] = (seen[t] || 0) + 1;
      return seen[t];
    });
  }
  // One action in words with its subject: who is a name or 'You' (then the verb
  // agrees: "You pass", "North passes"). o: {kontraLevel, hidden}.
  function actionWords(action, who, o) {
    o = o || {};
    const you = who === 'You';
    const v = (base, third) => (you ? base : (third || base + 's'));
    const [verb, ...rest] = String(action).split(' ');
    const arg = rest.join(' ');
    let what;
    switch (verb) {
      case 'pass': what = v('pass', 'passes'); break;
      case 'bid': what = v('bid') + ' ' + term(arg); break;
      case 'call': what = v('call') + ' the King of ' + capital((SUITS[arg] || { name: arg }).name); break;
      case 'talon': what = v('take') + ' the ' + (ORDINAL[Number(arg)] || ('group ' + (Number(arg) + 1))) + ' talon group'; break;
      case 'discard': what = v('discard') + ' ' + (o.hidden && arg === '?' ? 'a card' : cardPhrase(arg)); break;
      case 'announce': what = v('announce') + ' ' + term(arg); break;
      case 'kontra': what = v('announce') + ' ' + (KONTRA[(o.kontraLevel || 1) - 1] || 'Kontra') + ' on ' + kontraTarget(arg); break;
      case 'play': what = v('play') + ' ' + cardPhrase(arg); break;
      default: what = String(action);
    }
    return who + ' ' + what;
  }
  // The label of a button for one's own legal action: "Bid Three", "Pass",
  // "Take the second group", "Rekontra on the game". o: {kontraLevel}.
  function actionLabel(action, o) {
    o = o || {};
    const [verb, ...rest] = String(action).split(' ');
    const arg = rest.join(' ');
    switch (verb) {
      case 'pass': return 'Pass';
      case 'bid': return 'Bid ' + term(arg);
      case 'call': return 'Call the King of ' + capital((SUITS[arg] || { name: arg }).name);
      case 'talon': return 'Take the ' + (ORDINAL[Number(arg)] || String(Number(arg) + 1)) + ' group';
      case 'announce': return 'Announce ' + term(arg);
      case 'kontra': return (KONTRA[(o.kontraLevel || 1) - 1] || 'Kontra') + ' on ' + kontraTarget(arg);
      case 'play': return 'Play ' + cardPhrase(arg);
      case 'discard': return 'Discard ' + cardPhrase(arg);
      default: return String(action);
    }
  }

  // ---- formatting -----------------------------------------------------------
  // "1 trick", "2 tricks", "0 tricks".
  function count(n, one, many) {
    const k = Number(n) || 0;
    return k + ' ' + (k === 1 ? one : (many || one + 's'));
  }
  function num(x, digits) {
    if (x === null || x === undefined || x === '' || Number.isNaN(Number(x))) return '\u2013';
    return Number(x).toFixed(digits === undefined ? 2 : digits);
  }
  function signed(x, digits) {
    const n = Number(x);
    if (Number.isNaN(n)) return '\u2013';
    let s = n.toFixed(digits === undefined ? 0 : digits);
    if (/^-?[0.]+$/.test(s)) s = s.replace('-', '');  // no "-0.0"
    return n > 0 && !/^[0.]+$/.test(s) ? '+' + s : s.replace('-', '\u2212');
  }
  function int(x) { return x === undefined || x === null ? '0' : String(Number(x)); }
  function ago(unixSeconds) {
    if (!unixSeconds) return '';
    const d = Date.now() / 1000 - Number(unixSeconds);
    if (d < 60) return Math.max(0, Math.round(d)) + ' s ago';
    if (d < 3600) return Math.round(d / 60) + ' min ago';
    if (d < 86400) return Math.round(d / 3600) + ' h ago';
    return new Date(Number(unixSeconds) * 1000).toISOString().slice(0, 16).replace('T', ' ');
  }
  // The reserved seat "human" is a person playing in the browser, not a bot: no bot page.
  const HUMAN = 'human';
  function botLink(name) {
    if (name === HUMAN) return el('span', { class: 'bot person', title: 'a person playing in the browser (/play), not a bot' }, 'human (a person)');
    return el('a', { href: '/bots/' + encodeURIComponent(name), class: 'bot' }, name);
  }
  function ladderLink(id, text) { return el('a', { href: '/ladders/' + encodeURIComponent(id) }, text || 'ladder ' + id); }
  function matchLink(id, text) { return el('a', { href: '/matches/' + encodeURIComponent(id), class: 'mono' }, text || id); }
  function variantLink(v) { return el('a', { href: '/leaderboard/' + encodeURIComponent(v) }, v); }
  function badge(text, kind) { return el('span', { class: 'badge badge-' + (kind || text) }, text); }

  // table(columns, rows): columns [{label, cls, sort: row => value}], rows of
  // arrays of cells (strings or nodes). With sort functions the headers sort.
  function table(columns, rows, opts) {
    opts = opts || {};
    const tbody = el('tbody');
    const t = el('table', { class: 'grid' + (opts.reflow ? ' reflow' : '') + (opts.cls ? ' ' + opts.cls : '') });
    // On a phone a table either reflows (opts.reflow: each row a block of
    // "label value" lines) or says which columns it hides there.
    const hidden = columns.filter((c) => /\bhide-sm\b/.test(c.cls || '') && c.label).map((c) => c.label);
    if (hidden.length && !opts.reflow) {
      t.appendChild(el('caption', { class: 'only-sm hidden-note' }, 'Narrow screen: ' + hidden.join(', ') +
        (hidden.length === 1 ? ' is' : ' are') + ' not shown; widen the window or turn the phone to see ' + (hidden.length === 1 ? 'it.' : 'them.')));
    }
    const state = { col: opts.sortCol === undefined ? -1 : opts.sortCol, dir: opts.sortDir || 1 };
    const thead = el('thead', null, el('tr', null, columns.map((c, i) => {
      const th = el('th', { class: (c.cls || '') + (c.sort ? ' sortable' : ''), title: c.title || null }, c.label);
      if (c.sort) {
        th.addEventListener('click', () => {
          state.dir = state.col === i ? -state.dir : (c.desc ? -1 : 1);
          state.col = i;
          render();
        });
      }
      return th;
    })));
    function render() {
      let items = rows.slice();
      if (state.col >= 0 && columns[state.col].sort) {
        const f = columns[state.col].sort;
        items.sort((a, b) => {
          const x = f(a.data); const y = f(b.data);
          return (x < y ? -1 : x > y ? 1 : 0) * state.dir;
        });
      }
      Array.from(thead.querySelectorAll('th')).forEach((th, i) => {
        th.classList.toggle('sorted-asc', i === state.col && state.dir > 0);
        th.classList.toggle('sorted-desc', i === state.col && state.dir < 0);
      });
      clear(tbody);
      items.forEach((r) => tbody.appendChild(el('tr', { class: r.cls || null },
        r.cells.map((cell, i) => el('td', { class: columns[i].cls || null, 'data-label': columns[i].label || null }, cell)))));
      if (!items.length && opts.empty) {
        tbody.appendChild(el('tr', null, el('td', { class: 'empty', colspan: columns.length }, opts.empty)));
      }
    }
    t.appendChild(thead);
    t.appendChild(tbody);
    render();
    t.sortState = state;
    return t;
  }

  // Runs fn now and every `ms` while the page is visible; returns a stop function.
  function poll(fn, ms) {
    let timer = null;
    let stopped = false;
    async function tick() {
      if (stopped) return;
      if (!document.hidden) { try { await fn(); } catch (e) { /* shown by fn */ } }
      if (!stopped) timer = setTimeout(tick, ms);
    }
    tick();
    return () => { stopped = true; clearTimeout(timer); };
  }

  function errorBox(message) { return el('div', { class: 'notice notice-error' }, message); }
  // A "not found" page (the server answers 404 for a missing bot or match too).
  function notFound(main, what) {
    clear(main);
    document.title = 'Not found \u00b7 Tarock Arena';
    main.appendChild(el('section', { class: 'notfound' },
      el('h1', null, '404'), el('p', null, what || 'There is nothing at this address.'),
      el('p', null, el('a', { href: '/' }, 'Back to the arena'))));
  }

  function params() { return new URLSearchParams(window.location.search); }
  // Ratings on fewer rated matches (or sets) than this are marked
  // (arena/scheduler/scheduler.h kProvisionalMatches).
  const PROVISIONAL = 10;
  function provisionalMark(on, model) {
    return on ? el('span', { class: 'provisional', title: 'Provisional: fewer than ' + PROVISIONAL +
      (model === 'margin' ? ' rated sets' : ' rated matches') + ', so the rating rests on too few results to compare' }, 'provisional') : null;
  }
  // Why a margin and a plain mean a deal differ (on every page that shows a
  // margin: the standings, a bot's page, an event's final; issue 48).
  const MARGIN_CAP = 'Each head-to-head difference on a deal counts at most \u00b130 in a margin (points or chips, the rating\u2019s unit), so that one wild deal (a lost Valat, a Mondfang) cannot outweigh hundreds of ordinary ones; a tournament\u2019s or final\u2019s plain mean a deal is not capped, so the two differ most for a bot that loses big. ';
  // What a standings table under either model shows (its legend), as nodes.
  function ratingLegend(margin) {
    return [margin
      ? 'Margin ratings: points a deal above or below the field, from duplicate sets (the same deals at several tables), with the 95% interval; vs next: how far the bot is above the next one head to head, with the 95% interval of that difference (\u2248: their intervals overlap, not separated yet). ' + MARGIN_CAP
      : 'Place ratings: mu \u2212 3 sigma (OpenSkill on the places of each match). ',
    el('span', { class: 'provisional' }, 'provisional'), ' = fewer than ' + PROVISIONAL + (margin ? ' rated sets. ' : ' rated matches. ')];
  }
  // A margin board's "vs next" cell, on every page that shows one (the
  // leaderboard, a ladder's page, an event's ladder): how far the bot is above
  // the next one head to head (LeaderboardEntry.vs_next: the difference and
  // its 95% interval), and whether their intervals overlap (not separated yet).
  function vsNext(e) {
    const h = e.vs_next;
    const mark = e.unseparated_from_next ? el('span', { class: 'unsep', title: 'Not separated from the next bot: their 95% intervals overlap' }, '\u2248 next') : el('span', { class: 'muted' }, 'apart');
    if (!h) return mark;
    return el('span', { class: 'vs-next', title: 'Above the next bot by this much a deal, head to head, with the 95% interval of the difference' },
      signed(h.diff, 2), ' ', el('span', { class: 'interval' }, '[' + signed(h.low, 2) + ', ' + signed(h.high, 2) + ']'), ' ', mark);
  }
  // A link to one of the arena's documents (docs/NAME.md, served as plain text
  // at /docs/NAME.md), shown by the path it has in the source tree.
  function docLink(name, anchorText) {
    return el('a', { href: '/docs/' + name, class: 'doc-link' }, anchorText || 'docs/' + name);
  }

  window.tarock = Object.assign(window.tarock || {}, {
    el, clear, cardElement, parseCard, cardTitle, sortCards, nav, api, num, signed, int, ago,
    botLink, matchLink, variantLink, badge, table, poll, errorBox, notFound, params, SUITS,
    actionWords, actionLabel, kontraLevels, cardPhrase, term, count, ladderLink, HUMAN,
    docLink, PROVISIONAL, provisionalMark, ratingLegend, vsNext, MARGIN_CAP,
  });
})();
