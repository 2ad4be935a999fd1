// Tarock Arena web pages: shared helpers on window.tarock (stable names, also
// used by the play page):
//   el(tag, attrs, ...children)  build DOM; strings become text nodes (never HTML)
//   cardElement(name)            one card of the fixed notation ("T21", "HK", "C10")
//   nav(activeKey)               the common header (keys: home, leaderboard, matches,
//                                tournaments, bots, play)
//   api(path)                    fetch JSON from the arena, throw Error on failure
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
    ['tournaments', '/tournaments', 'Tournaments'],
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

  // ---- formatting -----------------------------------------------------------
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
  function botLink(name) { return el('a', { href: '/bots/' + encodeURIComponent(name), class: 'bot' }, name); }
  function matchLink(id, text) { return el('a', { href: '/matches/' + encodeURIComponent(id), class: 'mono' }, text || id); }
  function variantLink(v) { return el('a', { href: '/leaderboard/' + encodeURIComponent(v) }, v); }
  function badge(text, kind) { return el('span', { class: 'badge badge-' + (kind || text) }, text); }

  // table(columns, rows): columns [{label, cls, sort: row => value}], rows of
  // arrays of cells (strings or nodes). With sort functions the headers sort.
  function table(columns, rows, opts) {
    opts = opts || {};
    const tbody = el('tbody');
    const t = el('table', { class: 'grid' + (opts.cls ? ' ' + opts.cls : '') });
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
        r.cells.map((cell, i) => el('td', { class: columns[i].cls || null }, cell)))));
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

  window.tarock = Object.assign(window.tarock || {}, {
    el, clear, cardElement, parseCard, cardTitle, sortCards, nav, api, num, signed, int, ago,
    botLink, matchLink, variantLink, badge, table, poll, errorBox, notFound, params, SUITS,
  });
})();
